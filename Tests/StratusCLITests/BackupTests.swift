import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// `stratus backup` under a steady write load from another process, then `stratus restore`: everything the store had
/// acknowledged before the backup began is in the restored directory (records with their tags and fields, zones,
/// tokens, keys, admins, assets); a damaged, truncated or incomplete backup and a non-empty target are refused.
@Suite struct BackupTests {
    static let key = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEMMzyFwZiBT/BUHVwftiXoV6uz7eC
        TpI09K0+bxduAxTWqqrICtq3xqrBAHH29fb1ULka5Z+C2LoS3WvLoaMrdw==
        -----END PUBLIC KEY-----
        """

    @Test func aBackupUnderWritesRestoresEverythingAcknowledgedBeforeIt() async throws {
        let root = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data"), backup = root.appendingPathComponent("backup"), restored = root.appendingPathComponent("restored")
        let container = "iCloud.com.example.Backup"
        #expect(try await Executables.run("stratus", ["container", "create", container, "--data", data.path]).status == 0)
        struct Before: Sendable { var token: String; var keyID: String; var asset: AssetValue; var bytes: Data }
        let before = try await Executables.offPool { () -> Before in
            let store = try ServerStore(dataDirectory: data)
            let id = try ContainerID(container)
            let env = try store.environment(id, .development)
            let token = try store.credentials.createAPIToken(container: id, environment: .development, name: "ci").secret
            let key = try store.credentials.addServerKey(container: id, environment: .development, publicKeyPEM: Self.key)
            _ = try store.admins.createAdmin(email: "ops@example.com", password: "a long admin password")
            let owner = "_" + String(repeating: "c", count: 32)
            _ = try env.zones.createZone(ZoneID(zoneName: "Work", ownerRecordName: owner), in: .privateDatabase(of: owner))
            let bytes = Data((0..<5000).map { UInt8($0 % 251) })
            let asset = try env.assets.uploadAsset(bytes)
            _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "photo", recordType: "Photo", fields: ["image": .asset(asset), "title": .string("ünïcode")]))],
                               in: .publicDatabase, actor: .system)
            return Before(token: token, keyID: key.keyID, asset: asset, bytes: bytes)
        }

        // The steady write load: another process committing batches of 200 while the backup runs.
        let writer = ChildProcess()
        writer.executableURL = Executables.url("stratus-bench")
        writer.arguments = ["writer", "--data", data.path, "--container", container]
        let out = Pipe()
        writer.standardOutput = out
        try writer.run()
        let acked = try await Executables.offPool { () -> Int in
            var acked = -1, buffer = ""
            while acked < 3 {
                let chunk = out.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                buffer += String(decoding: chunk, as: UTF8.self)
                while let nl = buffer.firstIndex(of: "\n") {
                    if buffer[..<nl].hasPrefix("ack "), let n = Int(buffer[buffer.index(buffer.startIndex, offsetBy: 4)..<nl]) { acked = n }
                    buffer.removeSubrange(...nl)
                }
            }
            return acked
        }
        #expect(acked >= 3)
        let backedUp = try await Executables.run("stratus", ["backup", "--data", data.path, "--to", backup.path])
        writer.terminate()
        writer.waitUntilExit()
        #expect(backedUp.status == 0, "\(backedUp.stderr)")
        #expect(backedUp.stdout.contains("backed up"))

        // Refusals first: a non-empty target; then a damaged and a truncated copy of the backup.
        try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: restored.appendingPathComponent("keep"))
        let overwrite = try await Executables.run("stratus", ["restore", "--from", backup.path, "--data", restored.path])
        #expect(overwrite.status != 0 && overwrite.stderr.contains("not empty"))
        try FileManager.default.removeItem(at: restored)
        let damaged = root.appendingPathComponent("damaged")
        try FileManager.default.copyItem(at: backup, to: damaged)
        let env = damaged.appendingPathComponent("containers/\(container)/development.sqlite")
        var bytes = try Data(contentsOf: env)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: env)
        let refused = try await Executables.run("stratus", ["restore", "--from", damaged.path, "--data", restored.path])
        #expect(refused.status != 0 && refused.stderr.contains("SHA-256"), "\(refused.stderr)")
        try bytes.prefix(bytes.count / 3).write(to: env)
        let truncated = try await Executables.run("stratus", ["restore", "--from", damaged.path, "--data", restored.path])
        #expect(truncated.status != 0 && truncated.stderr.contains("truncated"), "\(truncated.stderr)")
        try FileManager.default.removeItem(at: damaged.appendingPathComponent("manifest.json"))
        let unfinished = try await Executables.run("stratus", ["restore", "--from", damaged.path, "--data", restored.path])
        #expect(unfinished.status != 0 && unfinished.stderr.contains("manifest.json"))
        #expect(!FileManager.default.fileExists(atPath: restored.appendingPathComponent("stratus.sqlite").path), "a refused restore writes nothing")

        let restore = try await Executables.run("stratus", ["restore", "--from", backup.path, "--data", restored.path])
        #expect(restore.status == 0, "\(restore.stderr)")
        struct Found: Sendable { var missing: [String]; var differing: [String]; var token: Bool; var key: Bool; var admin: Bool; var zone: Bool; var asset: Data?; var integrity: String }
        let found = try await Executables.offPool { () -> Found in
            let original = try ServerStore(dataDirectory: data), copy = try ServerStore(dataDirectory: restored)
            let id = try ContainerID(container)
            let a = try original.environment(id, .development), b = try copy.environment(id, .development)
            var missing: [String] = [], differing: [String] = []
            for batch in -1...acked {
                let names = batch < 0 ? ["photo"] : (0..<200).map { "b\(batch)-\($0)" }
                for (x, y) in zip(try a.records.lookup(names, in: .publicDatabase), try b.records.lookup(names, in: .publicDatabase)) {
                    guard let y = try? y.get() else { missing.append((try? x.get())?.recordName ?? "?"); continue }
                    let x = try x.get()
                    if x.recordChangeTag != y.recordChangeTag || x.fields != y.fields || x.created != y.created { differing.append(x.recordName) }
                }
            }
            let owner = "_" + String(repeating: "c", count: 32)
            return Found(missing: missing, differing: differing,
                         token: try copy.credentials.authenticateAPIToken(before.token) != nil,
                         key: try copy.credentials.serverKey(id: before.keyID) != nil,
                         admin: try copy.admins.authenticateAdmin(email: "ops@example.com", password: "a long admin password") != nil,
                         zone: (try? b.zones.lookupZone(ZoneID(zoneName: "Work", ownerRecordName: owner), in: .privateDatabase(of: owner))) != nil,
                         asset: b.assets.assetContent(checksum: before.asset.fileChecksum), integrity: try b.integrityCheck())
        }
        #expect(found.missing.isEmpty, "acknowledged before the backup but not restored: \(found.missing.prefix(5))")
        #expect(found.differing.isEmpty, "restored differently: \(found.differing.prefix(5))")
        #expect(found.token && found.key && found.admin && found.zone)
        #expect(found.asset == before.bytes)
        #expect(found.integrity == "ok")
    }

    static func mode(_ url: URL) -> Int { ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.posixPermissions] as? Int ?? -1) & 0o777 }

    @Test func theDataDirectoryAndBackupsAreTheUsersAloneAndACraftedLinkIsRefused() async throws {
        let root = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let data = root.appendingPathComponent("data"), backup = root.appendingPathComponent("backup")
        let container = "iCloud.com.example.Private"
        #expect(try await Executables.run("stratus", ["container", "create", container, "--data", data.path]).status == 0)
        let env = data.appendingPathComponent("containers/\(container)/development.sqlite")
        #expect(Self.mode(data) == 0o700 && Self.mode(data.appendingPathComponent("stratus.sqlite")) == 0o600 && Self.mode(env) == 0o600)
        #expect(Self.mode(data.appendingPathComponent("containers/\(container)")) == 0o700)
        #expect(try await Executables.run("stratus", ["backup", "--data", data.path, "--to", backup.path]).status == 0)
        #expect(Self.mode(backup) == 0o700 && Self.mode(backup.appendingPathComponent("stratus.sqlite")) == 0o600)

        // A data directory someone opened up is made private again when a store opens it.
        chmod(data.path, 0o755)
        chmod(data.appendingPathComponent("stratus.sqlite").path, 0o644)
        #expect(try await Executables.run("stratus", ["container", "list", "--data", data.path]).status == 0)
        #expect(Self.mode(data) == 0o700 && Self.mode(data.appendingPathComponent("stratus.sqlite")) == 0o600)

        // A crafted backup: its database swapped for a link to a copy elsewhere (same bytes, so the hashes match).
        let outside = root.appendingPathComponent("outside.sqlite")
        let linked = backup.appendingPathComponent("containers/\(container)/development.sqlite")
        try FileManager.default.copyItem(at: linked, to: outside)
        try FileManager.default.removeItem(at: linked)
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: outside)
        let refused = try await Executables.run("stratus", ["restore", "--from", backup.path, "--data", root.appendingPathComponent("restored").path])
        #expect(refused.status != 0 && refused.stderr.contains("symbolic link"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("restored/containers").path), "nothing was planted")
        // A linked directory on the way is refused the same.
        try FileManager.default.removeItem(at: linked)
        try FileManager.default.copyItem(at: outside, to: linked)
        let dir = backup.appendingPathComponent("containers/\(container)")
        let moved = root.appendingPathComponent("moved")
        try FileManager.default.moveItem(at: dir, to: moved)
        try FileManager.default.createSymbolicLink(at: dir, withDestinationURL: moved)
        let viaDirectory = try await Executables.run("stratus", ["restore", "--from", backup.path, "--data", root.appendingPathComponent("restored2").path])
        #expect(viaDirectory.status != 0 && viaDirectory.stderr.contains("symbolic link"), "\(viaDirectory.stderr)")
        // Put back as it was, the backup restores into a private directory.
        try FileManager.default.removeItem(at: dir)
        try FileManager.default.moveItem(at: moved, to: dir)
        let restored = root.appendingPathComponent("restored3")
        #expect(try await Executables.run("stratus", ["restore", "--from", backup.path, "--data", restored.path]).status == 0)
        #expect(Self.mode(restored) == 0o700 && Self.mode(restored.appendingPathComponent("stratus.sqlite")) == 0o600)
    }
}
