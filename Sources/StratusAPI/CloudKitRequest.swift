import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// One authenticated CloudKit request: where it goes and who sends it. Every CloudKit entry point (the operations,
/// the notification stream, the device tokens) gets it from `CloudKitAPI.authorize`, the one place that reads the
/// route's container and environment, spends the caller's request budgets and checks their credentials.
struct CloudKitRequest: Sendable {
    var container: ContainerID
    var environment: ContainerEnvironment
    var database: DatabaseScope
    var auth: APIAuth
    var body: JSON
    var request: HTTPRequest
    /// The environment the request names, opened once while authorizing: each handler's store calls, the
    /// caller's roles and the answer's asset URLs take it from here.
    var store: EnvironmentStore

    /// How record field values and query filter values spell TIMESTAMPs (see `TimestampWire`; subscriptions
    /// always use milliseconds).
    var timestamps: TimestampWire { TimestampWire(request) }

    /// The signed-in user (`authorize` with `.signedInUser` made sure there is one).
    var user: String { auth.userRecordName ?? "" }

    /// The database the caller may touch: the public one, or their own private/shared one.
    var databaseID: DatabaseID {
        switch database {
        case .public: .publicDatabase
        case .private: .privateDatabase(of: auth.userRecordName ?? "")
        case .shared: .sharedDatabase(of: auth.userRecordName ?? "")
        }
    }
}
