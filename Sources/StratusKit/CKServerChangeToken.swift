import Foundation

/// Mirrors `CKServerChangeToken`: where a database's or zone's change feed was read up to. Opaque to apps; kept with
/// `NSSecureCoding` (as CloudKit apps do) or `Codable`.
public final class CKServerChangeToken: NSObject, NSSecureCoding, Codable, @unchecked Sendable {
    /// The server's sync token (`syncToken` / `metaSyncToken` on the wire).
    let value: String

    init(value: String) { self.value = value }

    /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
    public static var supportsSecureCoding: Bool { true }

    /// What a keyed archive keeps of it (NSCoding).
    public func encode(with coder: NSCoder) { coder.encode(value as NSString, forKey: "token") }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive.
    public init?(coder: NSCoder) {
        guard let v = coder.optionalObject(of: NSString.self, forKey: "token") else { return nil }
        value = v as String
    }

    /// Encodes the token as its opaque string (Codable).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }

    /// Decodes a token written by `encode(to:)` (Codable).
    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    /// Equal when every identifying part is equal, as with CloudKit.
    public override func isEqual(_ object: Any?) -> Bool { (object as? CKServerChangeToken)?.value == value }
    /// Consistent with `isEqual(_:)`.
    public override var hash: Int { value.hashValue }
    /// A short form for logs.
    public override var description: String { "<CKServerChangeToken \(value.prefix(12))…>" }
}
