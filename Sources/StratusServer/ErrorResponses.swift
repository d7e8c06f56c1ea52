import Foundation
import StratusAPI
import StratusHTTP
import StratusModel

/// The one place errors that escape a handler, or that the HTTP layer answers itself, become HTTP: under the
/// CloudKit paths (`/database/1`, `/device/1`, `/auth/1`) CloudKit's JSON envelope, elsewhere plain text.
/// Internal details never reach a client: they are logged under the envelope's uuid.
enum ErrorResponses {
    static func respond(_ error: any Error, _ path: String) -> HTTPResponse {
        if ErrorEnvelope.isCloudKitPath(path) {
            switch error {
            case let e as HTTPError: return ErrorEnvelope.response(e)
            case let e as StratusError: return ErrorEnvelope.response(e)
            default: return ErrorEnvelope.response(StratusError(.internalError, "\(error)"))
            }
        }
        switch error {
        case let e as HTTPError:
            return HTTPServer.plainErrorResponse(e, path)
        case let e as StratusError where e.code != .internalError:
            return .text(e.reason + "\n", status: .code(e.code.httpStatus))
        default:
            let uuid = UUID().uuidString.lowercased()
            return .text(ErrorEnvelope.publicReason(StratusError(.internalError, "\(error)"), uuid: uuid) + "\n", status: .internalServerError)
        }
    }
}
