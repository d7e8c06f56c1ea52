import Foundation

/// Mirrors `CKServerChangeToken`: where a database's or zone's change feed was read up to. Opaque to apps; kept with
/// `NSSecureCoding` (as CloudKit apps do) or `Codable`.
public final class CKServerChangeToken: NSObject, NSSecureCoding, Codable, @unchecked Sendable {
    /// The server's sync token (`syncToken` / `metaSyncToken` on the wire).
    let value: String

    init(value: String) { self.value = value }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) { coder.encode(value as NSString, forKey: "token") }

    public init?(coder: NSCoder) {
        guard let v = coder.optionalObject(of: NSString.self, forKey: "token") else { return nil }
        value = v as String
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }

    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    public override func isEqual(_ object: Any?) -> Bool { (object as? CKServerChangeToken)?.value == value }
    public override var hash: Int { value.hashValue }
    public override var description: String { "<CKServerChangeToken \(value.prefix(12))…>" }
}
