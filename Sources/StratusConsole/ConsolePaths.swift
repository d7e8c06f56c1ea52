import Foundation
import StratusModel

/// Every console URL is made here: one method per console route (ConsoleRoutes.swift),
/// each escaping what it is given — a zone, record, role or user name may hold any character. Handlers and view
/// models call it; templates get its URLs as values and spell no path of their own. A link that leads nowhere is
/// then a wrong method here, which ConsoleLinkWalkTests finds by following every link of every page.
struct ConsolePaths {
    // MARK: outside any container

    static let home = "/console/"
    static let login = "/console/login"
    static let logout = "/console/logout"
    static let audit = "/console/audit"
    static let administrators = "/console/administrators"
    static let twoFactor = "/console/two-factor"
    static func administrators(done: String) -> String { url(administrators, [("done", done)]) }
    static let theme = "/console/theme"
    static let containers = "/console/containers"
    static let setupForm = "/console/setup"
    static func setup(token: String) -> String { url(setupForm, [("token", token)]) }
    static func home(created: ContainerID) -> String { url(home, [("created", created.rawValue)]) }
    static func home(deleted: ContainerID) -> String { url(home, [("deleted", deleted.rawValue)]) }
    static func environment(_ c: ContainerID,
                            _ e: ContainerEnvironment) -> String { "/console/\(segment(c.rawValue))/\(e.rawValue)/" }
    static func deploy(_ c: ContainerID, done: String? = nil) -> String { url("/console/\(segment(c.rawValue))/deploy",
            [("done", done)]) }
    /// The deploy page's history of deployments.
    static func deployHistory(_ c: ContainerID) -> String { deploy(c) + "#history" }
    static func deleteContainer(_ c: ContainerID) -> String { "/console/\(segment(c.rawValue))/delete" }

    /// `path` with a query of the items that have a value, each escaped.
    static func url(_ path: String, _ query: [(String, String?)]) -> String {
        let items = query.compactMap { k, v in v.map { "\(k)=\(segment($0))" } }
        return items.isEmpty ? path : path + "?" + items.joined(separator: "&")
    }

    /// Whether `target` (a path and query, still percent-encoded) is one this type could have written: under
    /// `/console/`, of unreserved characters, `/ ? = &` and well-formed escapes only, with no empty, `.` or `..`
    /// segment. Anything else (a CR or LF, a quote, a second slash that makes a scheme-relative URL) is not.
    static func isConsoleTarget(_ target: String) -> Bool {
        let bytes = Array(target.utf8)
        guard target.hasPrefix(home), bytes.count <= 4096 else { return false }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: "?"),
                 UInt8(ascii: "="), UInt8(ascii: "&"):
                i += 1
            case UInt8(ascii: "%"):
                guard i + 2 < bytes.count, bytes[i + 1].isHexDigit, bytes[i + 2].isHexDigit else { return false }
                i += 3
            default: return false
            }
        }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return !path.split(separator: "/",
                           omittingEmptySubsequences: false).dropFirst().dropLast().contains { $0.isEmpty || $0 == "." || $0 == ".." }
            && !path.hasSuffix("/.") && !path.hasSuffix("/..")
    }

    /// One path segment or query value, percent-escaped but for RFC 3986's unreserved characters.
    static func segment(_ s: String) -> String { Console.queryEscape(s) }

    // MARK: one container environment

    let container: ContainerID
    let environment: ContainerEnvironment
    /// "/console/{container}/{environment}": every page below starts with it.
    var base: String { "/console/\(Self.segment(container.rawValue))/\(environment.rawValue)" }

    func home(done: String? = nil) -> String { Self.url(base + "/", [("done", done)]) }

    func schema(done: String? = nil) -> String { Self.url(base + "/schema", [("done", done)]) }
    func schemaExport() -> String { Self.url(base + "/schema", [("format", "ckdb")]) }
    func schemaImport() -> String { base + "/schema/import" }
    func recordTypes() -> String { base + "/schema/types" }
    func recordType(_ name: String, done: String? = nil) -> String { Self.url("\(base)/schema/\(Self.segment(name))",
            [("done", done)]) }
    func deleteRecordType(_ name: String) -> String { "\(base)/schema/\(Self.segment(name))/delete" }
    func fields(_ type: String) -> String { "\(base)/schema/\(Self.segment(type))/fields" }
    func deleteField(_ type: String,
                     _ field: String) -> String { "\(base)/schema/\(Self.segment(type))/fields/\(Self.segment(field))/delete" }
    func indexes(_ type: String) -> String { "\(base)/schema/\(Self.segment(type))/indexes" }

    func roles(done: String? = nil) -> String { Self.url(base + "/roles", [("done", done)]) }
    func createRole() -> String { base + "/roles/create" }
    func roleMembers(_ role: String) -> String { "\(base)/roles/\(Self.segment(role))/members" }
    func deleteRole(_ role: String) -> String { "\(base)/roles/\(Self.segment(role))/delete" }

    func tokens(done: String? = nil) -> String { Self.url(base + "/tokens", [("done", done)]) }
    func revokeToken(_ id: Int64) -> String { "\(base)/tokens/\(id)/revoke" }
    func keys() -> String { base + "/keys" }
    func signIn(done: String? = nil) -> String { Self.url(base + "/sign-in", [("done", done)]) }
    func providers() -> String { base + "/sign-in/providers" }
    func removeProvider(_ name: String) -> String { "\(base)/sign-in/providers/\(Self.segment(name))/remove" }
    func signUpWays() -> String { base + "/sign-in/sign-up" }
    func revokeKey(_ id: String) -> String { "\(base)/keys/\(Self.segment(id))/revoke" }

    func faults(done: String? = nil) -> String { Self.url(base + "/faults", [("done", done)]) }
    func clearFault(_ id: Int64) -> String { "\(base)/faults/\(id)/clear" }

    func logs(_ query: [(String, String?)] = []) -> String { Self.url(base + "/logs", query) }
    func telemetry(range: String? = nil) -> String { Self.url(base + "/telemetry", [("range", range)]) }
    func importPage() -> String { base + "/import" }
    func importJob(_ id: String) -> String { "\(base)/import/\(Self.segment(id))" }

    func notifications() -> String { base + "/notifications" }
    func testNotification() -> String { base + "/notifications/test" }
    func apnsKey() -> String { base + "/notifications/apns" }
    func removeAPNsKey() -> String { base + "/notifications/apns/remove" }
    func webhooks(done: String? = nil) -> String { Self.url(base + "/webhooks", [("done", done)]) }
    /// `action`: enable, disable or remove.
    func webhook(_ id: Int64, _ action: String) -> String { "\(base)/webhooks/\(id)/\(action)" }
    func subscriptions(done: String? = nil) -> String { Self.url(base + "/subscriptions", [("done", done)]) }
    func deleteSubscription() -> String { base + "/subscriptions/delete" }

    func sharing(done: String? = nil) -> String { Self.url(base + "/sharing", [("done", done)]) }
    func revokeShare(_ id: Int64) -> String { "\(base)/sharing/\(id)/revoke" }

    func queryShapes(done: String? = nil) -> String { Self.url(base + "/query-shapes", [("done", done)]) }
    func buildIndexes() -> String { base + "/query-shapes/build" }
    /// `action`: pin, unpin or drop.
    func automaticIndex(_ name: String,
                        _ action: String) -> String { "\(base)/query-shapes/indexes/\(Self.segment(name))/\(action)" }

    func reset() -> String { base + "/reset" }
    func users(done: String? = nil) -> String { Self.url(base + "/users", [("done", done)]) }
    /// The "Act as" page: the environment's users found by `q` (email or name), each with a button that acts as them.
    func actAs(q: String? = nil) -> String { Self.url(base + "/act-as", [("q", q)]) }
    func stopActing() -> String { base + "/act-as/stop" }
    func signOutUser(_ userRecordName: String) -> String { "\(base)/users/\(Self.segment(userRecordName))/signout" }
    func purgeUser(_ userRecordName: String) -> String { "\(base)/users/\(Self.segment(userRecordName))/purge" }
    func unlinkUser(_ userRecordName: String) -> String { "\(base)/users/\(Self.segment(userRecordName))/unlink" }
    func asset(_ checksum: String) -> String { "\(base)/assets/\(Self.segment(checksum))" }

    /// The pages of one database: a private or shared one is a user's, named by `as=`.
    func database(_ scope: DatabaseScope, as user: String? = nil) -> DatabasePaths {
        DatabasePaths(base: "\(base)/\(scope.rawValue)", user: scope == .public ? nil : user)
    }

    struct DatabasePaths {
        let base: String
        let user: String?

        private func url(_ path: String, _ query: [(String, String?)]) -> String { ConsolePaths.url(path,
                query + [("as", user)]) }

        func records(_ query: [(String, String?)] = []) -> String { url(base + "/records", query) }
        /// The records page's query form: a GET form replaces its action's query, so the form carries `as` itself.
        func recordsForm() -> String { base + "/records" }
        func newRecord(_ query: [(String, String?)] = []) -> String { url(base + "/new-record", query) }
        func record(zone: String, name: String, _ query: [(String, String?)] = []) -> String {
            url("\(base)/records/\(ConsolePaths.segment(zone))/\(ConsolePaths.segment(name))", query)
        }
        func recordAsset(zone: String,
                         name: String) -> String { url("\(base)/records/\(ConsolePaths.segment(zone))/\(ConsolePaths.segment(name))/asset", []) }
        func deleteRecord(zone: String,
                          name: String) -> String { url("\(base)/records/\(ConsolePaths.segment(zone))/\(ConsolePaths.segment(name))/delete", []) }
        func zones(_ query: [(String, String?)] = []) -> String { url(base + "/zones", query) }
        func deleteZone(_ zone: String) -> String { url("\(base)/zones/\(ConsolePaths.segment(zone))/delete", []) }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
