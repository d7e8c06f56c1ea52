import Foundation

extension Notification.Name {
    /// Mirrors `Notification.Name.CKAccountChanged`, posted on `NotificationCenter.default` when the account a
    /// container acts for changes: here, when a user signs in through StratusKit (`CKContainer.signIn…`), and when
    /// the server says a container's signed-in user is no longer signed in (the web auth token expired or was
    /// revoked). Apps answer it as on Apple platforms: check `accountStatus()` and fetch the user record ID again.
    public static let CKAccountChanged = Notification.Name("CKAccountChangedNotification")
}
