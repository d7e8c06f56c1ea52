import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

@Suite struct CommandLineTests {
    let sample = """
        DEFINE SCHEMA
            CREATE ROLE DeptManager;
            RECORD TYPE Department (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___recordID" REFERENCE QUERYABLE,
                name STRING, phone LIST<STRING>, employees LIST<REFERENCE>,
                GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world",
                GRANT WRITE, CREATE, READ TO DeptManager
            );
        """

    @Test func containerLifecycle() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let d = ["--data", data.path]
        #expect(try await Executables.run("stratus", ["container", "create", "iCloud.com.example.Notes"] + d).status == 0)
        #expect(try await Executables.run("stratus", ["container", "create", "iCloud.com.example.Photos"] + d).status == 0)
        let list = try await Executables.run("stratus", ["container", "list"] + d)
        #expect(list.stdout == "iCloud.com.example.Notes\niCloud.com.example.Photos\n")
        let dup = try await Executables.run("stratus", ["container", "create", "iCloud.com.example.Notes"] + d)
        #expect(dup.status != 0 && dup.stderr.contains("already exists"))
        let bad = try await Executables.run("stratus", ["container", "create", "../../etc"] + d)
        #expect(bad.status != 0 && bad.stderr.contains("invalid container identifier"))
        #expect(try await Executables.run("stratus", ["container", "delete", "iCloud.com.example.Photos"] + d).status == 0)
        let missing = try await Executables.run("stratus", ["container", "delete", "iCloud.com.example.Photos"] + d)
        #expect(missing.status != 0 && missing.stderr.contains("does not exist"))
        #expect(try await Executables.run("stratus", ["container", "list"] + d).stdout == "iCloud.com.example.Notes\n")
    }

    @Test func faultsFromTheCommandLine() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let c = "iCloud.com.example.Faulty"
        #expect(try await Executables.run("stratus", ["container", "create", c, "--data", data.path]).status == 0)
        let base = ["--data", data.path, "--container", c, "--environment", "development"]
        let set = try await Executables.run("stratus", ["faults", "set"] + base + ["--operation", "records/modify", "--error", "ZONE_BUSY", "--count", "3", "--retry-after", "2"])
        #expect(set.status == 0 && set.stdout.contains("fault 1: ZONE_BUSY on records/modify"), "\(set.stderr)")
        let listed = try await Executables.run("stratus", ["faults", "list", "--data", data.path])
        #expect(listed.stdout.contains("records/modify\tZONE_BUSY\t3 left\tinjected 0\ton"), "\(listed.stdout)")
        for (args, message) in [(["--error", "BOGUS", "--count", "1"], "unknown error 'BOGUS'"), (["--error", "ZONE_BUSY"], "either a count or a probability"),
                                (["--error", "ZONE_BUSY", "--probability", "1.5"], "probability must be"), (["--error", "NONE", "--count", "1"], "needs latency"),
                                (["--error", "ZONE_BUSY", "--count", "1", "--expires-in", "9223372036854775807"], "1 to 86400 seconds"),
                                (["--error", "ZONE_BUSY", "--count", "1", "--expires-in=-9223372036854775808"], "1 to 86400 seconds")] {
            let bad = try await Executables.run("stratus", ["faults", "set"] + base + ["--operation", "records/modify"] + args)
            #expect(bad.status != 0 && bad.stderr.contains(message), "\(args): \(bad.stderr)")
        }
        let unknownOperation = try await Executables.run("stratus", ["faults", "set"] + base + ["--operation", "records/nothing", "--error", "ZONE_BUSY", "--count", "1"])
        #expect(unknownOperation.status != 0 && unknownOperation.stderr.contains("unknown operation"))
        #expect(try await Executables.run("stratus", ["faults", "clear", "--data", data.path, "--id", "1"]).status == 0)
        #expect(try await Executables.run("stratus", ["faults", "list", "--data", data.path]).stdout.contains("no faults"))
    }

    @Test func automaticIndexesFromTheCommandLine() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let name = try await Executables.offPool { () -> String in
            let store = try ServerStore(dataDirectory: data)
            let container = try ContainerID("iCloud.com.example.Shapes")
            try store.createContainer(container)
            let env = try store.environment(container, .development)
            _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "a", recordType: "Note", fields: ["kind": .string("x"), "size": .int64(1)]))],
                               in: .publicDatabase, actor: RequestActor(userRecordName: "_cli"))
            return try env.queryShapes.buildAutoIndex(for: QueryShape(Query(recordType: "Note", filters: [QueryFilter(.field("kind"), .equals, .string("x"))],
                                                                sorts: [QuerySort(.field("size"), ascending: false)]))).name
        }
        let d = ["--data", data.path, "--container", "iCloud.com.example.Shapes", "--environment", "development"]
        let list = try await Executables.run("stratus", ["indexes", "list"] + d)
        #expect(list.status == 0 && list.stdout.contains(name) && list.stdout.contains("Note(kind,size)") && list.stdout.contains("unpinned"), "\(list.stdout)")
        #expect(try await Executables.run("stratus", ["indexes", "pin", name] + d).status == 0)
        #expect(try await Executables.run("stratus", ["indexes", "list"] + d).stdout.contains("\tpinned"))
        #expect(try await Executables.run("stratus", ["indexes", "drop", name] + d).status == 0)
        #expect(try await Executables.run("stratus", ["indexes", "list"] + d).stdout == "no automatic indexes\n")
        let missing = try await Executables.run("stratus", ["indexes", "drop", name] + d)
        #expect(missing.status != 0 && missing.stderr.contains("no automatic index"))
    }

    @Test func administratorsFromTheCommandLine() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let d = ["--data", data.path]
        let created = try await Executables.run("stratus", ["admin", "create", "--email", "ops@example.com", "--password-stdin"] + d, stdin: "a long admin password\n")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try await Executables.run("stratus", ["admin", "list"] + d).stdout == "ops@example.com\towner (all containers)\n",
                "the first administrator owns the server")
        let short = try await Executables.run("stratus", ["admin", "create", "--email", "b@example.com", "--password-stdin"] + d, stdin: "short\n")
        #expect(short.status != 0 && short.stderr.contains("10 to 1024"))
        #expect(try await Executables.run("stratus", ["admin", "reset-password", "--email", "ops@example.com", "--password-stdin"] + d, stdin: "another long password\n").status == 0)
        // One made later holds no role until granted one; the last owner stays one.
        #expect(try await Executables.run("stratus", ["admin", "create", "--email", "dev@example.com", "--password-stdin"] + d,
                                          stdin: "a long admin password\n").status == 0)
        #expect(try await Executables.run("stratus", ["admin", "list"] + d).stdout.contains("dev@example.com\tno role"))
        let granted = try await Executables.run("stratus", ["admin", "grant", "--email", "dev@example.com", "--role", "developer",
                                                            "--container", "iCloud.com.example.A"] + d)
        #expect(granted.status == 0 && granted.stdout.contains("developer in iCloud.com.example.A"), "\(granted.stderr)")
        #expect(try await Executables.run("stratus", ["admin", "grant", "--email", "dev@example.com", "--role", "boss"] + d).status != 0)
        let demoted = try await Executables.run("stratus", ["admin", "grant", "--email", "ops@example.com", "--role", "admin"] + d)
        #expect(demoted.status != 0 && demoted.stderr.contains("last owner"))
        #expect(try await Executables.run("stratus", ["admin", "delete", "--email", "ops@example.com"] + d).status != 0)
        #expect(try await Executables.run("stratus", ["admin", "revoke", "--email", "dev@example.com", "--container", "iCloud.com.example.A"] + d).status == 0)
        #expect(try await Executables.run("stratus", ["admin", "revoke", "--email", "dev@example.com", "--container", "iCloud.com.example.A"] + d).status != 0)
        // A scoped token for CI: its secret the last line, shown once; listed without it; revoked.
        let made = try await Executables.run("stratus", ["admin", "token", "create", "--name", "ci", "--container", "iCloud.com.example.A",
                                                         "--role", "developer", "--expires", "90d"] + d)
        let secret = made.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(made.status == 0 && secret.count == 64 && secret.allSatisfy(\.isHexDigit), "\(made.stdout)\(made.stderr)")
        let tokens = try await Executables.run("stratus", ["admin", "token", "list"] + d).stdout
        #expect(tokens.contains("ci\tdeveloper in iCloud.com.example.A") && !tokens.contains(secret))
        #expect(try await Executables.run("stratus", ["admin", "token", "create", "--name", "x", "--role", "viewer", "--expires", "soon"] + d).status != 0)
        let id = String(tokens.prefix { $0 != "\t" })
        #expect(try await Executables.run("stratus", ["admin", "token", "revoke", "--id", id] + d).status == 0)
        #expect(try await Executables.run("stratus", ["admin", "token", "list"] + d).stdout.isEmpty)
        #expect(try await Executables.run("stratus", ["admin", "delete", "--email", "dev@example.com"] + d).status == 0)
        #expect(try await Executables.run("stratus", ["admin", "delete", "--email", "ops@example.com"] + d).status == 0)
        #expect(try await Executables.run("stratus", ["admin", "list"] + d).stdout.isEmpty)
    }

    @Test func schemaImportExportDeployAndReset() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let d = ["--data", data.path], c = ["--container", "iCloud.com.example.Org"]
        try await Executables.run("stratus", ["container", "create", "iCloud.com.example.Org"] + d)
        let file = data.appendingPathComponent("schema.ckdb")
        try sample.write(to: file, atomically: true, encoding: .utf8)

        let imported = try await Executables.run("stratus", ["schema", "import", "--file", file.path] + c + d)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("applied: add record type Department"))
        let exported = try await Executables.run("stratus", ["schema", "export", "--environment", "development"] + c + d)
        #expect(exported.stdout.contains("GRANT WRITE, CREATE, READ TO DeptManager"))
        #expect(exported.stdout.contains("phone") && exported.stdout.contains("LIST<STRING>"))
        // Export is re-importable: nothing changes.
        try exported.stdout.write(to: file, atomically: true, encoding: .utf8)
        #expect(try await Executables.run("stratus", ["schema", "import", "--file", file.path] + c + d).stdout == "no changes\n")

        let plan = try await Executables.run("stratus", ["schema", "deploy", "--dry-run"] + c + d)
        #expect(plan.status == 0 && plan.stdout.contains("would apply: add role DeptManager"))
        #expect(try await Executables.run("stratus", ["schema", "export", "--environment", "production"] + c + d).stdout == "DEFINE SCHEMA\n")
        let deployed = try await Executables.run("stratus", ["schema", "deploy", "--by", "ci"] + c + d)
        #expect(deployed.status == 0 && deployed.stdout.contains("applied: add record type Department"))
        #expect(try await Executables.run("stratus", ["schema", "export", "--environment", "production"] + c + d).stdout == exported.stdout)

        // Dropping a deployed field is refused, with the reason, and changes nothing.
        try "DEFINE SCHEMA CREATE ROLE DeptManager; RECORD TYPE Department ( name STRING );".write(to: file, atomically: true, encoding: .utf8)
        let refused = try await Executables.run("stratus", ["schema", "import", "--file", file.path] + c + d)
        #expect(refused.status != 0 && refused.stderr.contains("exists in Production"))
        // A syntax error names line and column.
        try "DEFINE SCHEMA\nRECORD TYPE X ( a STRNG );".write(to: file, atomically: true, encoding: .utf8)
        let syntax = try await Executables.run("stratus", ["schema", "import", "--file", file.path] + c + d)
        #expect(syntax.status != 0 && syntax.stderr.contains("line 2, column 19"))

        #expect(try await Executables.run("stratus", ["reset"] + c + d).status == 0)
        #expect(try await Executables.run("stratus", ["schema", "export"] + c + d).stdout == exported.stdout)
        let unknownEnv = try await Executables.run("stratus", ["schema", "export", "--environment", "staging"] + c + d)
        #expect(unknownEnv.status != 0 && unknownEnv.stderr.contains("unknown environment"))
    }
}

/// The release binary needs no flags to find its console, whatever the working directory.
@Suite struct RunsAnywhereTests {
    @Test func serveFindsTemplatesAndStaticFilesFromAnyWorkingDirectory() async throws {
        let dir = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let p = ChildProcess()
        p.executableURL = Executables.url("stratus")
        p.arguments = ["serve", "--port", "0", "--data", "data"]
        p.currentDirectoryURL = dir
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { p.terminate(); p.waitUntilExit() }
        let url = try await Executables.offPool { () -> String in
            var text = ""
            while !text.contains("\n") {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                text += String(decoding: d, as: UTF8.self)
            }
            return text
        }
        let base = try #require(url.firstMatch(of: /serving (http:\/\/[^\s]+\/)/).map { String($0.1) }, "serve printed: \(url)")
        let (login, r1) = try await URLSession.shared.data(from: URL(string: base + "console/login")!)
        #expect((r1 as? HTTPURLResponse)?.statusCode == 200 && String(decoding: login, as: UTF8.self).contains("<form"))
        let (_, r2) = try await URLSession.shared.data(from: URL(string: base + "-/static/console.css")!)
        #expect((r2 as? HTTPURLResponse)?.statusCode == 200)
    }
}

@Suite struct WebhookCommandTests {
    @Test func addListRemoveAndRefuseCredentialsInTheURL() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let c = "iCloud.com.example.Hooks"
        let scope = ["--container", c, "--environment", "development", "--data", data.path]
        #expect(try await Executables.run("stratus", ["container", "create", c, "--data", data.path]).status == 0)
        let added = try await Executables.run("stratus", ["webhook", "add", "--url", "https://hooks.example.com/x", "--record-type", "Order"] + scope)
        #expect(added.status == 0 && added.stdout.split(separator: "\n").last?.count == 64, "the signing secret, once: \(added.stdout)")
        let listed = try await Executables.run("stratus", ["webhook", "list"] + scope)
        #expect(listed.stdout.contains("https://hooks.example.com/x") && listed.stdout.contains("Order") && !listed.stdout.contains(String(added.stdout.split(separator: "\n").last ?? "")))
        let bad = try await Executables.run("stratus", ["webhook", "add", "--url", "http://user:pass@example.com/"] + scope)
        #expect(bad.status != 0 && bad.stderr.contains("no credentials"))
        #expect(try await Executables.run("stratus", ["webhook", "remove", "1"] + scope).status == 0)
        #expect(try await Executables.run("stratus", ["webhook", "list"] + scope).stdout.isEmpty)
    }
}

@Suite struct APNsCommandTests {
    /// `stratus apns set` stores the .p8 key a running server pushes with; `show` names it without printing it;
    /// a file that is not a key, or IDs that are not Apple's, are refused with what to give instead.
    @Test(.enabled(if: Prerequisites.available(Prerequisites.executable("openssl") != nil), "openssl is not installed"))
    func setShowAndRemoveTheAPNsKey() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let c = "iCloud.com.example.Push"
        let scope = ["--container", c, "--environment", "production", "--data", data.path]
        #expect(try await Executables.run("stratus", ["container", "create", c, "--data", data.path]).status == 0)
        let p8 = data.appendingPathComponent("AuthKey_ABC123DEFG.p8")
        #expect(try await offPool { try Tools.run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8.path]).status } == 0)
        let key = ["--key-file", p8.path, "--key-id", "ABC123DEFG", "--team-id", "TEAM123456", "--topic", "com.example.notes"]
        let set = try await Executables.run("stratus", ["apns", "set"] + key + scope)
        #expect(set.status == 0 && set.stdout.contains("APNs key ABC123DEFG (team TEAM123456) pushes to com.example.notes"), "\(set.stdout)\(set.stderr)")
        let shown = try await Executables.run("stratus", ["apns", "show"] + scope)
        let pem = try String(contentsOf: p8, encoding: .utf8).split(separator: "\n")[1]
        #expect(shown.stdout.contains("key ID ABC123DEFG") && shown.stdout.contains("0 devices registered") && !shown.stdout.contains(pem))
        let notAKey = data.appendingPathComponent("notes.txt")
        try "hello".write(to: notAKey, atomically: true, encoding: .utf8)
        let bad = try await Executables.run("stratus", ["apns", "set", "--key-file", notAKey.path, "--key-id", "ABC123DEFG", "--team-id", "TEAM123456",
                                                        "--topic", "com.example.notes"] + scope)
        #expect(bad.status != 0 && bad.stderr.contains("not an APNs signing key"))
        let badID = try await Executables.run("stratus", ["apns", "set", "--key-file", p8.path, "--key-id", "short", "--team-id", "TEAM123456",
                                                          "--topic", "com.example.notes"] + scope)
        #expect(badID.status != 0 && badID.stderr.contains("Key ID"))
        #expect(try await Executables.run("stratus", ["apns", "remove"] + scope).status == 0)
        #expect(try await Executables.run("stratus", ["apns", "show"] + scope).stdout.contains("no APNs key"))
        #expect(try await Executables.run("stratus", ["apns", "remove"] + scope).status != 0)
    }
}

@Suite struct UsersCommandTests {
    @Test func usersPurgeDeletesOneUsersDataInOneEnvironment() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Purge")
        let user = try await Executables.offPool { () -> ContainerUser in
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            let u = try store.accounts.createUser(container: container, email: "pat@example.com", password: "a long password")
            let env = try store.environment(container, .development)
            let zone = ZoneID(zoneName: "Notes", ownerRecordName: u.userRecordName)
            _ = try env.zones.createZone(zone, in: .privateDatabase(of: u.userRecordName))
            return u
        }
        let args = ["--data", data.path, "--container", container.rawValue, "--environment", "development"]
        let listed = try await Executables.run("stratus", ["users", "list", "--data", data.path, "--container", container.rawValue])
        #expect(listed.stdout.contains("pat@example.com"))
        let purged = try await Executables.run("stratus", ["users", "purge", "--user", "pat@example.com"] + args)
        #expect(purged.status == 0, "\(purged.stderr)")
        #expect(purged.stdout.contains("purged \(user.userRecordName)"))
        let unknown = try await Executables.run("stratus", ["users", "purge", "--user", "nobody@example.com"] + args)
        #expect(unknown.status != 0 && unknown.stderr.contains("no user"))
        let zones = try await Executables.offPool { try ServerStore(dataDirectory: data).environment(container, .development).zones.all(in: .privateDatabase(of: user.userRecordName)) }
        #expect(!zones.map(\.zoneID.zoneName).contains("Notes"))
    }
}

@Suite struct EncryptedExportTests {
    @Test func exportsLeaveEncryptedValuesOutUnlessAsked() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Secrets")
        try await Executables.offPool {
            let store = try ServerStore(dataDirectory: data)
            try store.createContainer(container)
            _ = try store.lifecycle.importSchema(try SchemaParser.parse("""
                DEFINE SCHEMA
                    RECORD TYPE Diary ("___recordID" REFERENCE QUERYABLE, title STRING, secret ENCRYPTED STRING, GRANT READ TO "_world");
                """), into: container)
            _ = try store.environment(container, .development).records.modify(
                [RecordOperation(.create, StoredRecord(recordName: "d1", recordType: "Diary", fields: ["title": .string("Monday"), "secret": .string("c2VjcmV0")]))],
                in: .publicDatabase, actor: .system)
        }
        let args = ["records", "export", "--data", data.path, "--container", container.rawValue, "--environment", "development", "--database", "public"]
        for extra in [[], ["--format", "csv", "--type", "Diary"]] {
            let plain = try await Executables.run("stratus", args + extra)
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout.contains("Monday") && !plain.stdout.contains("c2VjcmV0"), "\(plain.stdout)")
            let all = try await Executables.run("stratus", args + extra + ["--include-encrypted"])
            #expect(all.stdout.contains("c2VjcmV0"), "\(all.stdout)")
        }
        // A field first saved through StratusKit's encryptedValues (schema-on-write) is ENCRYPTED too.
        let owner = "_" + String(repeating: "e", count: 32)
        try await Executables.offPool {
            let store = try ServerStore(dataDirectory: data)
            defer { store.close() }
            let env = try store.environment(container, .development)
            let zone = ZoneID(zoneName: "Journal", ownerRecordName: owner)
            _ = try env.zones.createZone(zone, in: .privateDatabase(of: owner))
            var op = RecordOperation(.create, StoredRecord(recordName: "j1", recordType: "Entry", fields: ["day": .string("Tuesday"), "pin": .string("9731")]))
            op.encryptedFields = ["pin"]
            let saved = try env.records.modify([op], in: .privateDatabase(of: owner), zoneID: zone, actor: RequestActor(userRecordName: owner))
            #expect(saved.first?.error == nil)
        }
        let mine = ["records", "export", "--data", data.path, "--container", container.rawValue, "--environment", "development", "--database", "private", "--user", owner]
        let plain = try await Executables.run("stratus", mine)
        #expect(plain.status == 0 && plain.stdout.contains("Tuesday") && !plain.stdout.contains("9731"), "\(plain.stdout) \(plain.stderr)")
        #expect(try await Executables.run("stratus", mine + ["--include-encrypted"]).stdout.contains("9731"))
    }
}

@Suite struct ConflictLabCommandTests {
    @Test func theConflictLabIsOneCommandLine() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let c = "iCloud.com.example.Lab"
        #expect(try await Executables.run("stratus", ["container", "create", c, "--data", data.path]).status == 0)
        let base = ["--data", data.path, "--container", c, "--environment", "development"]
        let set = try await Executables.run("stratus", ["faults", "set"] + base + ["--conflict-on", "note-1", "--server-fields", #"{"title":{"value":"x","type":"STRING"}}"#])
        #expect(set.status == 0 && set.stdout.contains("CONFLICT on records/modify") && set.stdout.contains("(per-record)"), "\(set.stdout)\(set.stderr)")
        let listed = try await Executables.run("stratus", ["faults", "list", "--data", data.path])
        #expect(listed.stdout.contains("per-record\trecord=note-1"), "\(listed.stdout)")
        let bad = try await Executables.run("stratus", ["faults", "set"] + base + ["--conflict-on", "n", "--server-fields", "not json"])
        #expect(bad.status != 0 && bad.stderr.contains("field JSON"))
        let after = try await Executables.run("stratus", ["faults", "set"] + base + ["--operation", "records/modify", "--error", "NETWORK_DROP", "--where", "after-commit", "--count", "1", "--user", "_abc"])
        #expect(after.status == 0 && after.stdout.contains("(after-commit)"), "\(after.stderr)")
        let perDrop = try await Executables.run("stratus", ["faults", "set"] + base + ["--operation", "records/modify", "--error", "NETWORK_DROP", "--where", "per-record", "--count", "1"])
        #expect(perDrop.status != 0 && perDrop.stderr.contains("has none"))
    }
}
