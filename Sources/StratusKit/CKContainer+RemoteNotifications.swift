import Foundation
import StratusJSON

extension CKContainer {
    /// Which APNs service delivers to the app: its `aps-environment` entitlement.
    public enum APNsEnvironment: String, Sendable {
        case development = "DEVELOPMENT"
        case production = "PRODUCTION"
    }

    /// Registers the device token Apple gave the app (in
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`)
    /// for the signed-in user, so that Stratus pushes their subscriptions' notifications to this device through
    /// APNs while the app is in the background. Apple's CloudKit registers by itself; against Stratus the app
    /// calls this after each registration (it is cheap to repeat). The server needs the developer's APNs key
    /// (`stratus apns set`). Without `apnsEnvironment`, a Production container pushes through APNs' production
    /// service and a Development one through its sandbox, as Xcode's builds expect.
    public func registerForRemoteNotifications(deviceToken: Data,
                                               apnsEnvironment: APNsEnvironment? = nil) async throws {
        let environment = apnsEnvironment ?? (services.configuration.environment == .production ? .production : .development)
        let hex = deviceToken.map { String(format: "%02x", $0) }.joined()
        _ = try await services.send(path: "/device/1/\(services.containerIdentifier)/\(services.configuration.environment.rawValue)/tokens/register",
                                    body: ["apnsEnvironment": JSON(environment.rawValue), "apnsToken": JSON(hex)])
    }
}
