import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// `/device/1/{container}/{environment}/tokens/create|register`: CloudKit JS asks for an APNs token and a web
    /// courier URL before it can receive notifications. Stratus answers with a token of its own; delivering
    /// notifications on the courier URL is a later piece of work, so registering simply succeeds.
    func deviceTokens(_ req: HTTPRequest) async -> HTTPResponse {
        do {
            let container = try ContainerID(req.parameters["container"] ?? "")
            let environment = try Environment(parsing: req.parameters["environment"] ?? "")
            let body = try JSON.parse(req.body)
            let api = self
            return await finish(try await blocking.run {
                guard try api.store.containerExists(container) else { throw StratusError(.notFound, "container \(container) does not exist") }
                _ = try api.authenticate(req, container: container, environment: environment)
                switch req.parameters["action"] {
                case "create":
                    guard let env = body["apnsEnvironment"]?.string, ["DEVELOPMENT", "PRODUCTION"].contains(env.uppercased()) else {
                        throw StratusError.badRequest("tokens/create needs apnsEnvironment DEVELOPMENT or PRODUCTION")
                    }
                    let token = Secrets.hex(Secrets.randomBytes(32))
                    return api.json { w in
                        w.beginObject()
                        w.field("apnsEnvironment", env.uppercased())
                        w.field("apnsToken", token)
                        w.field("webcourierURL", "\(api.baseURL(req))/-/webcourier/\(token)")
                        w.endObject()
                    }
                case "register":
                    guard body["apnsToken"]?.string?.isEmpty == false else { throw StratusError.badRequest("tokens/register needs an apnsToken") }
                    return api.json { w in w.beginObject(); w.endObject() }
                default:
                    throw StratusError(.notFound, "unknown tokens endpoint")
                }
            }, req)
        } catch {
            return await finish(envelope(StratusError.wrapping(error)), req)
        }
    }
}
