/// One CloudKit API request as the Logs page lists it.
public struct RequestLogEntry: Sendable, Hashable {
    public var id: Int64
    /// Milliseconds since 1970.
    public var at: Int64
    public var container, environment, operation, database: String
    /// The signed-in user's record name, when there was one.
    public var user: String?
    public var status: Int
    /// CloudKit's error code of an error answer.
    public var errorCode: String?
    public var durationMicroseconds: Int
    /// The uuid of an error answer (what a client quotes).
    public var uuid: String?
    /// The answer was a fault an admin injected (Faults page), not a failure of the server.
    public var injected: Bool

    public init(id: Int64 = 0, at: Int64, container: String, environment: String, operation: String, database: String,
                user: String?, status: Int,
                errorCode: String?, durationMicroseconds: Int, uuid: String?, injected: Bool = false) {
        self.id = id
        self.at = at
        self.container = container
        self.environment = environment
        self.operation = operation
        self.database = database
        self.user = user
        self.status = status
        self.errorCode = errorCode
        self.durationMicroseconds = durationMicroseconds
        self.uuid = uuid
        self.injected = injected
    }
}
