import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// The notification log of a container environment: what each user was notified of and how far it got, the
/// webhook deliveries with their last error, and a form that sends a test notification to a user's courier
/// tokens and SSE streams.
extension MonitorPages {
    func notificationsPage(_ r: ConsoleRequest, sent: String? = nil, error: String? = nil) throws -> HTTPResponse {
        let scope = r.scope
        let users = try store.accounts.users(container: scope.container)
        let mask = UserDataMask(scope)
        let emails = Dictionary(users.map { ($0.userRecordName, mask.email($0.email)) }, uniquingKeysWith: { a, _ in a })
        let notes = try scope.env.notifications.recentNotifications().map { n in
            let reason = switch n.reason {
            case 1?: "created"
            case 2?: "updated"
            case 3?: "deleted"
            default: n.subscriptionID == NotificationStore.testSubscriptionID ? "test" : "—"
            }
            let status = n.courierTokens == 0 ? "kept for SSE and courier (no courier token yet)"
                : n.courierDelivered == n.courierTokens ? "delivered (web courier)"
                : n.courierDelivered > 0 ? "delivered to \(n.courierDelivered) of \(n.courierTokens) courier tokens"
                : "pending (web courier)"
            return NotificationsView.Note(time: ValueDisplay.utcString(n.createdAt), user: emails[n.user] ?? n.user, subscription: n.subscriptionID,
                                          database: n.scope.rawValue, record: (n.recordName).map(mask.recordName) ?? "", reason: reason, status: status,
                                          delivered: n.courierTokens > 0 && n.courierDelivered == n.courierTokens, nid: n.notificationID)
        }
        let deliveries = try scope.env.webhooks.recentWebhookDeliveries().map { d in
            NotificationsView.Delivery(time: ValueDisplay.utcString(d.createdAt), url: d.url, record: d.recordName, recordType: d.recordType, reason: d.reason,
                                       state: d.state, failed: d.state == "failed", attempts: d.attempts, lastError: d.lastError ?? "", nid: d.notificationID)
        }
        // Push to Apple devices: the key in use (never the key itself), the registered devices and each push.
        let credentials = try store.credentials.apnsCredentials(container: scope.container, environment: scope.environment)
        let devices = try scope.env.apns.apnsDevices().map { d in
            NotificationsView.Device(user: emails[d.userRecordName] ?? d.userRecordName, token: d.shortToken,
                                     apnsEnvironment: d.apnsEnvironment.rawValue.lowercased(), registered: ValueDisplay.utcString(d.createdAt))
        }
        let pushes = try scope.env.apns.apnsDeliveries().map { d in
            NotificationsView.Push(time: ValueDisplay.utcString(d.at), user: emails[d.userRecordName] ?? d.userRecordName, token: d.shortToken, nid: d.notificationID,
                                   state: d.state.rawValue, bad: d.state == .failed || d.state == .unregistered, status: d.status == 0 ? "no answer" : String(d.status),
                                   reason: d.reason ?? "", attempts: d.attempts)
        }
        let view = NotificationsView(
            notifications: notes, hasNotifications: !notes.isEmpty, deliveries: deliveries, hasDeliveries: !deliveries.isEmpty,
            users: users.map { UserJSON(userRecordName: $0.userRecordName, email: mask.email($0.email)) }, hasUsers: !users.isEmpty,
            testAction: scope.paths.testNotification(), message: sent, error: error,
            apnsAction: scope.paths.apnsKey(), apnsRemoveAction: scope.paths.removeAPNsKey(), apnsDevices: devices, hasAPNsDevices: !devices.isEmpty,
            apnsDeliveries: pushes, hasAPNsDeliveries: !pushes.isEmpty,
            apns: credentials.map { .init(keyID: $0.keyID, teamID: $0.teamID, topic: $0.topic, updated: ValueDisplay.utcString($0.updatedAt)) })
        let json = NotificationsView.JSON(
            notifications: notes.map { .init(notificationID: $0.nid, user: $0.user, subscriptionID: $0.subscription, reason: $0.reason, status: $0.status) },
            webhookDeliveries: deliveries.map { .init(notificationID: $0.nid, url: $0.url, state: $0.state, attempts: $0.attempts, lastError: $0.lastError) },
            apnsDevices: devices,
            apnsDeliveries: pushes.map { .init(notificationID: $0.nid, user: $0.user, device: $0.token, state: $0.state, status: $0.status, reason: $0.reason, attempts: $0.attempts) },
            apns: credentials.map { .init(keyID: $0.keyID, teamID: $0.teamID, topic: $0.topic, updated: nil) })
        return page(r, tab: .notifications, "notifications", title: "Notifications", view, json: json, status: error == nil ? .ok : .badRequest)
    }

    /// `notifications.mustache`: notifications, webhook deliveries, and push to Apple devices.
    struct NotificationsView: Encodable {
        struct Note: Encodable { let time, user, subscription, database, record, reason, status: String; let delivered: Bool; let nid: String }
        struct Delivery: Encodable {
            let time, url, record, recordType, reason, state: String
            let failed: Bool
            let attempts: Int
            let lastError, nid: String
        }
        struct Device: Encodable { let user, token, apnsEnvironment, registered: String }
        struct Push: Encodable {
            let time, user, token, nid, state: String
            let bad: Bool
            let status, reason: String
            let attempts: Int
        }
        struct Key: Encodable { let keyID, teamID, topic: String; let updated: String? }
        struct JSON: Encodable {
            struct Note: Encodable { let notificationID, user, subscriptionID, reason, status: String }
            struct Delivery: Encodable { let notificationID, url, state: String; let attempts: Int; let lastError: String }
            struct Push: Encodable { let notificationID, user, device, state, status, reason: String; let attempts: Int }
            let notifications: [Note]
            let webhookDeliveries: [Delivery]
            let apnsDevices: [Device]
            let apnsDeliveries: [Push]
            let apns: Key?
        }
        let notifications: [Note]
        let hasNotifications: Bool
        let deliveries: [Delivery]
        let hasDeliveries: Bool
        let users: [UserJSON]
        let hasUsers: Bool
        let testAction: String
        let message, error: String?
        let apnsAction, apnsRemoveAction: String
        let apnsDevices: [Device]
        let hasAPNsDevices: Bool
        let apnsDeliveries: [Push]
        let hasAPNsDeliveries: Bool
        let apns: Key?
    }

    func sendTestNotification(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let f = form(req)
        let user = f["user"] ?? ""
        guard let target = try store.accounts.users(container: scope.container).first(where: { $0.userRecordName == user }) else {
            return try notificationsPage(r, error: "Choose a user of this container to notify.")
        }
        do {
            let nid = try scope.env.notifications.sendTestNotification(to: target.userRecordName, message: f["message"] ?? "")
            try audit(s, scope, "send test notification", "to \(target.email): \(nid)")
            if Console.wantsJSON(req) { return Console.jsonAnswer(["notificationID": nid]) }
            return try notificationsPage(r, sent: "Sent a test notification to \(target.email).")
        } catch let e as StratusError where e.code == .badRequest {
            return try notificationsPage(r, error: e.reason)
        }
    }

    /// Stores the APNs key pasted into the form (the .p8 file's text), replacing the one before; audited.
    func setAPNsKey(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let f = form(req)
        do {
            let c = try store.credentials.setAPNsCredentials(container: scope.container, environment: scope.environment, privateKeyPEM: f["privateKey"] ?? "",
                                                 keyID: (f["keyID"] ?? "").trimmingCharacters(in: .whitespaces),
                                                 teamID: (f["teamID"] ?? "").trimmingCharacters(in: .whitespaces),
                                                 topic: (f["topic"] ?? "").trimmingCharacters(in: .whitespaces))
            try audit(s, scope, "set APNs key", "key \(c.keyID), team \(c.teamID), topic \(c.topic)")
            return try notificationsPage(r, sent: "Pushes to \(c.topic) now go out with key \(c.keyID).")
        } catch let e as StratusError where e.code == .badRequest {
            return try notificationsPage(r, error: e.reason)
        }
    }

    func removeAPNsKey(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (s, scope) = (r.session, r.scope)
        do {
            try store.credentials.removeAPNsCredentials(container: scope.container, environment: scope.environment)
            try audit(s, scope, "remove APNs key", "")
            return try notificationsPage(r, sent: "Removed the APNs key: nothing more is pushed to Apple devices.")
        } catch let e as StratusError where e.code == .notFound {
            return try notificationsPage(r, error: e.reason)
        }
    }
}
