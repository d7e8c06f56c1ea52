import ArgumentParser
import Foundation
import StratusHTTP
import StratusModel
import StratusStore

@main
struct Stratus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract: "A self-hosted, CloudKit-compatible record store.",
        version: StratusVersion.current,
        subcommands: [ServeCommand.self, ContainerCommand.self, SchemaCommand.self, ResetCommand.self,
                      TokenCommand.self, KeyCommand.self, WebhookCommand.self, APNsCommand.self, IndexesCommand.self,
                AdminCommand.self, BackupCommand.self, RestoreCommand.self, MigrateCommand.self, RecordsCommand.self,
                FaultsCommand.self, UsersCommand.self, AuthCommand.self, SnapshotCommand.self, CheckCommand.self,
                RemoteCommand.self]
    )

    /// Whatever `stratus` writes (databases, assets, backups, import state) is the running user's alone.
    static func main() async {
        umask(0o077)
        MallocArenas.limitToCores()
        await main(nil)
    }
}

/// Options every command shares.
struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "The data directory.")
    var data: String = "./data"

    @Option(name: .long,
            help: ArgumentHelp("A PostgreSQL database to keep everything in instead of --data (postgres://user@host:port/db; default: $STRATUS_DATABASE_URL).",
                                            valueName: "url"))
    var databaseURL: String?

    /// `--database-url`, else `STRATUS_DATABASE_URL`: the PostgreSQL store, when one is named.
    var postgresURL: String? {
        databaseURL ?? ProcessInfo.processInfo.environment["STRATUS_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func open() throws -> ServerStore {
        if let url = postgresURL { return try ServerStore(databaseURL: url) }
        return try ServerStore(dataDirectory: URL(fileURLWithPath: data, isDirectory: true))
    }
}

/// Every change a command makes goes to the audit log, as the console's and the admin endpoints' do.
func audited(_ store: ServerStore, _ action: String, container: String? = nil, environment: String? = nil,
             detail: String = "") throws {
    let who = ProcessInfo.processInfo.environment["USER"].map { "command line (\($0))" } ?? "command line"
    try store.admins.audit(AuditEntry(at: WallClock.nowMillis(), admin: who, action: action, container: container,
                                      environment: environment, detail: detail))
}

/// Runs a command body, printing a readable message and exiting non-zero on failure instead of a stack dump.
func reportingErrors(_ body: () throws -> Void) throws {
    do { try body() } catch let e as StratusError {
        FileHandle.standardError.write(Data("error: \(e.reason) (\(e.code.rawValue))\n".utf8))
        throw ExitCode(1)
    } catch let e as SchemaSyntaxError {
        FileHandle.standardError.write(Data("error: schema \(e.description)\n".utf8))
        throw ExitCode(1)
    }
}
