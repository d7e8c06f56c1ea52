import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scoped bearer tokens for the admin API (/-/admin), for automation such as CI.",
            subcommands: [Create.self, List.self, Revoke.self])

        struct Create: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make a token that acts with one role; its secret is the last line printed, shown once.")
            @OptionGroup var options: DataOptions
            @Option(help: "What it is for (\"ci\").") var name: String
            @Option(help: "The container (every container without it).") var container: String?
            @Option(help: "owner, admin, developer or viewer.") var role: String
            @Option(help: "How long it lives: 90d, 12h, 30m (it never expires without it).") var expires: String?

            func run() throws {
                try reportingErrors {
                    let role = try AdminRole(parsing: role)
                    let container = try container.map { try ContainerID($0) }
                    let expiresAt = try expires.map { WallClock.nowMillis() + (try Self.milliseconds($0)) }
                    let store = try options.open()
                    let user = ProcessInfo.processInfo.environment["USER"]
                    let who = user.map { "command line (\($0))" } ?? "command line"
                    let (token, secret) = try store.admins.createToken(name: name, container: container, role: role,
                                                                       expiresAt: expiresAt, by: who)
                    try audited(store, "create admin token", detail: "\(token.name): \(token.roles.spelled)")
                    print("admin token \(token.id) \(token.name): \(token.roles.spelled)"
                          + (expiresAt.map { ", until \(Date(timeIntervalSince1970: Double($0) / 1000))" } ?? ""))
                    print(secret)
                }
            }

            /// `90d`, `12h`, `30m`: at most 10 years.
            static func milliseconds(_ text: String) throws(StratusError) -> Int64 {
                let units: [Character: Int64] = ["d": 86_400_000, "h": 3_600_000, "m": 60_000]
                guard let unit = text.last.flatMap({ units[$0] }), let n = Int64(text.dropLast()), n > 0,
                      n <= 3650 * 86_400_000 / unit else {
                    throw .badRequest("--expires is a number and d, h or m (90d), at most 10 years")
                }
                return n * unit
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the admin tokens (never their secrets).")
            @OptionGroup var options: DataOptions
            func run() throws {
                try reportingErrors {
                    for t in try options.open().admins.tokens() {
                        let until = t.expiresAt.map { "\(Date(timeIntervalSince1970: Double($0) / 1000))" } ?? "never"
                        print("\(t.id)\t\(t.name)\t\(t.roles.spelled)\texpires \(until)")
                    }
                }
            }
        }

        struct Revoke: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke an admin token at once.")
            @OptionGroup var options: DataOptions
            @Option(help: "Its id, as list prints it.") var id: Int64
            func run() throws {
                try reportingErrors {
                    let store = try options.open()
                    try store.admins.revokeToken(id)
                    try audited(store, "revoke admin token", detail: "\(id)")
                    print("revoked admin token \(id)")
                }
            }
        }
    }
}
