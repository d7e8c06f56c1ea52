import Foundation
import StratusJSON

/// Mirrors `CKContainer`: one app container of a Stratus server, and its public, private and shared databases.
/// Where CloudKit reads the container from entitlements and the user from the device's iCloud account, StratusKit
/// reads both from a `Configuration` (or, through `default()`, from the `STRATUS_*` environment variables).
public final class CKContainer: NSObject, @unchecked Sendable {
    /// Mirrors `CKContainer.containerIdentifier`.
    public let containerIdentifier: String?
    let services: WebServices
    private let operationQueue: OperationQueue
    /// Long-lived operations of this container running in this process.
    let longLivedOperations = LongLivedOperations()

    /// The container and connection the `STRATUS_*` variables describe; the identifier is `STRATUS_CONTAINER`.
    /// Mirrors `CKContainer.default()`. When a variable is missing, requests fail with `.badContainer` saying which.
    public static func `default`() -> CKContainer {
        let env = ProcessInfo.processInfo.environment
        return CKContainer(identifier: env["STRATUS_CONTAINER"] ?? "", configuration: .fromEnvironment(env))
    }

    /// Mirrors `CKContainer(identifier:)`: the named container, on the server the `STRATUS_*` variables describe.
    public convenience init(identifier: String) {
        self.init(identifier: identifier, configuration: .fromEnvironment())
    }

    /// StratusKit's initialiser: the named container on the configured server, environment and credentials.
    public init(identifier: String, configuration: Configuration) {
        // An app makes its container first: from then on Apple's archived records read through any unarchiver.
        AppleArchive.register()
        var c = configuration
        if identifier.isEmpty, c.problem == nil { c.problem = "no container identifier (STRATUS_CONTAINER) is set" }
        containerIdentifier = identifier
        services = WebServices(containerIdentifier: identifier, configuration: c)
        operationQueue = OperationQueue()
        operationQueue.name = "StratusKit.\(identifier)"
        operationQueue.maxConcurrentOperationCount = 4
        super.init()
    }

    /// Mirrors `CKContainer.publicCloudDatabase`.
    public private(set) lazy var publicCloudDatabase = CKDatabase(container: self, scope: .public)
    /// Mirrors `CKContainer.privateCloudDatabase`.
    public private(set) lazy var privateCloudDatabase = CKDatabase(container: self, scope: .private)
    /// Mirrors `CKContainer.sharedCloudDatabase`.
    public private(set) lazy var sharedCloudDatabase = CKDatabase(container: self, scope: .shared)

    /// Mirrors `CKContainer.database(with:)`.
    public func database(with scope: CKDatabase.Scope) -> CKDatabase {
        switch scope {
        case .public: publicCloudDatabase
        case .private: privateCloudDatabase
        case .shared: sharedCloudDatabase
        }
    }

    /// Mirrors `CKContainer.add(_:)`: runs a container operation on the container's queue.
    public func add(_ operation: CKOperation) {
        operation.prepare(container: self, database: nil)
        operationQueue.addOperation(operation)
    }

    /// Mirrors `CKContainer.fetchAllLongLivedOperationIDs(completionHandler:)`: the long-lived operations of this
    /// container running in this process.
    public func fetchAllLongLivedOperationIDs(completionHandler: @escaping @Sendable ([CKOperation.ID]?,
            (any Error)?) -> Void) {
        completionHandler(longLivedOperations.ids, nil)
    }

    /// Mirrors `CKContainer.fetchLongLivedOperation(withID:completionHandler:)`; `.unknownItem` for an operation
    /// that is not running (anymore).
    public func fetchLongLivedOperation(withID operationID: CKOperation.ID,
                                        completionHandler: @escaping @Sendable (CKOperation?, (any Error)?) -> Void) {
        if let operation = longLivedOperations.operation(operationID) {
            completionHandler(operation, nil)
        } else {
            completionHandler(nil, CKError.make(.unknownItem, "no long-lived operation \(operationID) is running"))
        }
    }

    /// The web auth token now in use: the server hands out a fresh one past half a token's life, and StratusKit
    /// keeps it. An app that stores its token should store this one.
    public var webAuthToken: String? { services.currentWebAuthToken }

    // MARK: Account

    /// Mirrors `CKContainer.accountStatus()`: `.available` with a signed-in user or a server-to-server key,
    /// `.noAccount` without one or when the server no longer accepts the token.
    public func accountStatus() async throws -> CKAccountStatus {
        switch services.configuration.credentials {
        case .none: return .noAccount
        case .serverToServerKey: return .available
        case .webAuthToken:
            do {
                _ = try await userRecordID()
                return .available
            } catch let e as CKError where e.code == .notAuthenticated {
                return .noAccount
            }
        }
    }

    /// Mirrors `CKContainer.accountStatus(completionHandler:)`.
    public func accountStatus(completionHandler: @escaping @Sendable (CKAccountStatus, (any Error)?) -> Void) {
        Task { do { completionHandler(try await accountStatus(), nil) } catch { completionHandler(.couldNotDetermine,
                error) } }
    }

    /// Mirrors `CKContainer.userRecordID()`: the signed-in user's record ID (`users/caller`).
    public func userRecordID() async throws -> CKRecord.ID {
        try await Self.userRecordID(services)
    }

    /// The signed-in user's record ID over a connection (a sync engine holds its database's, not the container).
    static func userRecordID(_ services: WebServices) async throws -> CKRecord.ID {
        let j = try await services.database(.public, "users/caller", nil)
        guard let name = j["userRecordName"]?.string else { throw CKError.make(.serverResponseLost,
                "users/caller named no user") }
        return CKRecord.ID(recordName: name)
    }

    /// Mirrors `CKContainer.fetchUserRecordID(completionHandler:)`.
    public func fetchUserRecordID(completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await userRecordID(), nil) } catch { completionHandler(nil, error) } }
    }

    /// Mirrors `CKContainer.userIdentity(forEmailAddress:)` (iOS 17's name for
    /// `discoverUserIdentity(withEmailAddress:)`):
    /// the identity of a user who made themselves discoverable, or nil.
    public func userIdentity(forEmailAddress email: String) async throws -> CKUserIdentity? {
        let j = try await services.database(.public, "users/discover", ["lookupInfos": [["emailAddress": JSON(email)]]])
        return (j["users"]?.objects)?.compactMap(CKUserIdentity.init(wire:)).first
    }

    /// Mirrors `CKContainer.discoverUserIdentity(withEmailAddress:completionHandler:)`.
    public func discoverUserIdentity(withEmailAddress email: String,
                                     completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await userIdentity(forEmailAddress: email),
                                      nil) } catch { completionHandler(nil, error) } }
    }

    /// Mirrors `CKContainer.discoverAllIdentities(completionHandler:)`: the discoverable users (`users/discover`).
    public func discoverAllIdentities(completionHandler: @escaping @Sendable ([CKUserIdentity]?,
            (any Error)?) -> Void) {
        Task {
            do {
                let j = try await services.database(.public, "users/discover", [:])
                completionHandler((j["users"]?.objects)?.compactMap(CKUserIdentity.init(wire:)) ?? [], nil)
            } catch { completionHandler(nil, error) }
        }
    }
}
