/// A failure an admin switched on for a container environment so that client retry code meets it in tests: an
/// error in CloudKit's envelope, a dropped connection, or added latency, for the next N matching requests or for
/// each one with a probability (decided by a seeded generator, so a failing CI run replays exactly).
public struct Fault: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case zoneBusy = "ZONE_BUSY"
        case throttled = "THROTTLED"
        case serviceUnavailable = "SERVICE_UNAVAILABLE"
        case internalError = "INTERNAL_ERROR"
        case quotaExceeded = "QUOTA_EXCEEDED"
        /// The connection is closed with the request read and no response written.
        case networkDrop = "NETWORK_DROP"
        /// Latency only (`latencyMilliseconds`), no failure.
        case none = "NONE"
        case limitExceeded = "LIMIT_EXCEEDED"
        /// On a changes request: the client must fetch from scratch.
        case changeTokenExpired = "CHANGE_TOKEN_EXPIRED"
        /// Purges the zone the request names (as its owner deleting the app's data), which the request then meets.
        case userDeletedZone = "USER_DELETED_ZONE"
        case zoneNotFound = "ZONE_NOT_FOUND"
        /// The conflict lab: the named record's next save meets a concurrent write of `serverFields` (per-record).
        case conflict = "CONFLICT"

        /// The CloudKit error code it answers with (nil: a drop, or latency only).
        public var errorCode: ErrorCode? {
            switch self {
            case .zoneBusy: .zoneBusy
            case .throttled: .throttled
            case .serviceUnavailable: .serviceUnavailable
            case .internalError: .internalError
            case .quotaExceeded: .quotaExceeded
            case .limitExceeded: .limitExceeded
            case .changeTokenExpired: .changeTokenExpired
            case .userDeletedZone: .userDeletedZone
            case .zoneNotFound: .zoneNotFound
            case .conflict: .conflict
            case .networkDrop, .none: nil
            }
        }
    }

    /// The CloudKit operations a fault can name (besides `*`).
    public static let operations = CloudKitOperation.allCases.map(\.rawValue)

    /// Where in a request a fault hits.
    public enum Stage: String, Sendable, Codable, CaseIterable {
        /// Before the request is carried out: nothing happens but the fault.
        case before
        /// After the request was carried out and committed: the answer is lost (NETWORK_DROP) or replaced by the
        /// error, so the client must not apply its write twice when it retries.
        case afterCommit = "after-commit"
        /// Inside a `records/modify` batch: the matching records fail with the error and the rest are carried out.
        case perRecord = "per-record"
    }

    /// The longest a fault may stay on, in seconds.
    public static let maximumLifetimeSeconds = 86_400

    /// When a fault made at `createdAt` (milliseconds) and switched off after `seconds` expires. The number comes
    /// from a form, a JSON body or the command line: it is bounded before any arithmetic, so no value of it traps.
    public static func expiry(createdAt: Int64, afterSeconds seconds: Int) throws(StratusError) -> Int64 {
        guard (1...maximumLifetimeSeconds).contains(seconds) else {
            throw .badRequest("a fault switches itself off after 1 to \(maximumLifetimeSeconds) seconds (a day)")
        }
        return createdAt + Int64(seconds) * 1000
    }

    public var id: Int64
    public var container: ContainerID
    public var environment: ContainerEnvironment
    /// `records/modify`, `zones/list`, … or `*` for every CloudKit operation.
    public var operation: String
    public var kind: Kind
    /// Matching requests still to fail (nil: by `probability`).
    public var remaining: Int?
    public var probability: Double?
    public var seed: UInt64
    public var retryAfter: Int?
    public var latencyMilliseconds: Int
    public var createdAt: Int64
    /// After this (milliseconds since 1970) it no longer fires.
    public var expiresAt: Int64
    /// How many times it fired.
    public var injected: Int
    public var stage: Stage = .before
    /// Only requests of this user (user record name), into this zone, about this record type or record name.
    public var user, zone, recordType, recordName: String?
    /// The conflict lab's concurrent write: CloudKit's field JSON (`{"title":{"value":"x","type":"STRING"}}`).
    public var serverFields: String?

    public init(id: Int64 = 0, container: ContainerID, environment: ContainerEnvironment, operation: String, kind: Kind,
                remaining: Int?, probability: Double?,
                seed: UInt64 = 0, retryAfter: Int? = nil, latencyMilliseconds: Int = 0, createdAt: Int64, expiresAt: Int64, injected: Int = 0) {
        self.id = id
        self.container = container
        self.environment = environment
        self.operation = operation
        self.kind = kind
        self.remaining = remaining
        self.probability = probability
        self.seed = seed
        self.retryAfter = retryAfter
        self.latencyMilliseconds = latencyMilliseconds
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.injected = injected
    }

    /// Whether it applies to a request for `operation` (before its count or probability is consulted).
    public func matches(_ container: ContainerID, _ environment: ContainerEnvironment, _ operation: String,
                        now: Int64) -> Bool {
        self.container == container && self.environment == environment && (self.operation == "*" || self.operation == operation)
            && now < expiresAt && (remaining.map { $0 > 0 } ?? true)
    }

    /// Whether a request (or one record of a batch) with these parts is within the fault's scope.
    public func covers(_ target: Target) -> Bool {
        (user == nil || target.user == user) && (zone == nil || target.zones.contains(zone!))
            && (recordType == nil || target.recordTypes.contains(recordType!)) && (recordName == nil || target.recordNames.contains(recordName!))
    }

    /// What a request is about, for a fault's scope.
    public struct Target: Sendable {
        public var user: String?
        public var zones, recordTypes, recordNames: [String]
        public init(user: String? = nil, zones: [String] = [], recordTypes: [String] = [], recordNames: [String] = []) {
            self.user = user
            self.zones = zones
            self.recordTypes = recordTypes
            self.recordNames = recordNames
        }
    }

    /// Whether the `n`th matching request (0-based) fails under `probability`: a SplitMix64 draw from `seed` and
    /// `n`, the same sequence on every run with the same seed.
    public func fires(at n: Int) -> Bool {
        guard let p = probability else { return true }
        var z = seed &+ UInt64(n + 1) &* 0x9E3779B97F4A7C15
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53) < p
    }
}
