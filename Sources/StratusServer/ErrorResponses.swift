import Foundation
import StratusHTTP
import StratusModel

/// The one place errors become HTTP: CloudKit's statuses for `StratusError` codes, protocol errors as they
/// are, anything else a 500 whose details stay in the log. A client's mistake is never a 500.
enum ErrorResponses {
    static func status(for code: ErrorCode) -> HTTPStatus { .code(code.httpStatus) }

    static func respond(_ error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        switch error {
        case let e as HTTPError:
            return .text(e.message + "\n", status: e.status)
        case let e as StratusError:
            return .text(e.reason + "\n", status: status(for: e.code))
        default:
            return .text("internal server error\n", status: .internalServerError)
        }
    }
}
