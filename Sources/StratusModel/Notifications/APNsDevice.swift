/// A device registered for push through `tokens/register` with the token Apple gave the app, and where APNs
/// delivery to it stands. The token is the user's device's address, shown in the console only shortened.
public struct APNsDevice: Sendable, Hashable {
    /// Lowercase hex, as `tokens/register` received it.
    public var token, userRecordName: String
    /// The device's `aps-environment`: which APNs host serves it.
    public var apnsEnvironment: APNsEnvironment
    public var createdAt: Int64
    /// The notification log position delivered through.
    public var deliveredThrough: Int64

    public init(token: String, userRecordName: String, apnsEnvironment: APNsEnvironment, createdAt: Int64, deliveredThrough: Int64) {
        self.token = token
        self.userRecordName = userRecordName
        self.apnsEnvironment = apnsEnvironment
        self.createdAt = createdAt
        self.deliveredThrough = deliveredThrough
    }

    /// The first and last characters: enough to tell devices apart on a page without publishing the address.
    public var shortToken: String { Self.shortened(token) }

    static func shortened(_ token: String) -> String { token.count > 12 ? "\(token.prefix(6))…\(token.suffix(4))" : token }

    /// APNs device tokens are 32 bytes today; Apple says they may grow, so 8…100 bytes of hex are taken.
    public static func validToken(_ s: String) -> Bool {
        s.utf8.count >= 16 && s.utf8.count <= 200 && s.utf8.count % 2 == 0
            && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }
    }
}

/// APNs' two services: development (sandbox) for apps built for development, production for the App Store's.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable {
    case development = "DEVELOPMENT"
    case production = "PRODUCTION"

    public init?(parsing s: String) { self.init(rawValue: s.uppercased()) }
}
