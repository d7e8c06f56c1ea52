/// A developer's backend that hears public-database changes of a container environment: every create, update and
/// delete of the named record types (all when none are named). Private and shared data never goes to a webhook.
public struct Webhook: Hashable, Sendable {
    public var id: Int64
    public var url: String
    /// Empty: every record type.
    public var recordTypes: [String]
    public var enabled: Bool
    /// Deliveries that failed for good since the last success.
    public var failures: Int
    public var lastStatus: String?
    public var lastDeliveryAt: Int64?
    public var createdAt: Int64

    public init(id: Int64, url: String, recordTypes: [String], enabled: Bool, failures: Int, lastStatus: String?, lastDeliveryAt: Int64?, createdAt: Int64) {
        self.id = id
        self.url = url
        self.recordTypes = recordTypes
        self.enabled = enabled
        self.failures = failures
        self.lastStatus = lastStatus
        self.lastDeliveryAt = lastDeliveryAt
        self.createdAt = createdAt
    }

    public func hears(_ recordType: String) -> Bool { enabled && (recordTypes.isEmpty || recordTypes.contains(recordType)) }

    /// Only http(s), with a host, no credentials in the URL, at most 2,048 bytes.
    public static func validate(url: String) throws(StratusError) {
        guard url.utf8.count <= 2048, url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .badRequest("a webhook URL is printable ASCII of at most 2048 bytes") }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { throw .badRequest("a webhook URL is http:// or https://") }
        let rest = url.drop(while: { $0 != ":" }).dropFirst(3)
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        guard !authority.isEmpty, !authority.contains("@") else { throw .badRequest("a webhook URL needs a host and no credentials (user:password@)") }
    }
}
