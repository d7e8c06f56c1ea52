import Foundation
import StratusTestSupport
import Testing
@testable import StratusModel
@testable import StratusStore

/// A restore reads only what the backup holds and the manifest checked, and writes all or nothing: a crafted
/// manifest (a table read from outside the backup, a table not among the checked files, a table without columns, a
/// data-directory backup that holds no store) and a target that is a symbolic link are clear errors, with nothing
/// written where the server would open it.
@Suite struct RestoreHardeningTests {
    static func crafted(_ source: PortableBackupFormatTests.Source, _ change: (inout BackupManifest) -> Void) throws {
        var manifest = try Backup.verify(source.backup)
        change(&manifest)
        try JSONEncoder().encode(manifest).write(to: source.backup.appendingPathComponent("manifest.json"))
    }

    static func refusal(_ source: PortableBackupFormatTests.Source, into name: String) -> String? {
        let target = source.root.appendingPathComponent(name)
        do {
            try DataDirectoryRestore.restore(from: source.backup, to: target)
            return nil
        } catch {
            // Nothing was left where the server would open it.
            #expect(!FileManager.default.fileExists(atPath: target.path), "\(name) was written")
            return error.reason
        }
    }

    @Test func aTableReadFromOutsideTheBackupIsRefused() throws {
        let source = try PortableBackupFormatTests.backedUp()
        defer { try? FileManager.default.removeItem(at: source.root) }
        let outside = source.root.appendingPathComponent("outside.rows")
        try Data([1, 2, 3]).write(to: outside)
        try Self.crafted(source) { m in m.tables![0].path = "../outside.rows" }
        #expect(Self.refusal(source, into: "a")?.contains("not among the backup's checked files") == true)
    }

    @Test func aTableMissingFromTheCheckedFilesIsRefused() throws {
        let source = try PortableBackupFormatTests.backedUp()
        defer { try? FileManager.default.removeItem(at: source.root) }
        try Self.crafted(source) { m in
            let path = m.tables!.first { $0.name == "zones" }!.path
            m.files.removeAll { $0.path == path }
        }
        #expect(Self.refusal(source, into: "b")?.contains("not among the backup's checked files") == true)
    }

    @Test func aTableWithoutColumnsOrOfNoKnownNameIsRefused() throws {
        let source = try PortableBackupFormatTests.backedUp()
        defer { try? FileManager.default.removeItem(at: source.root) }
        try Self.crafted(source) { m in m.tables![0].columns = [] }
        #expect(Self.refusal(source, into: "c")?.contains("no columns") == true)
        try Self.crafted(source) { m in m.tables![0].columns = ["id"]; m.tables![0].name = "sqlite_master" }
        #expect(Self.refusal(source, into: "d")?.contains("does not make") == true)
    }

    @Test func aDataDirectoryBackupThatHoldsNoStoreIsRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("restore-format1-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let backup = root.appendingPathComponent("backup")
        try FileManager.default.createDirectory(at: backup, withIntermediateDirectories: true)
        let junk = Data("not a database".utf8)
        try junk.write(to: backup.appendingPathComponent("notes.txt"))
        let manifest = BackupManifest(format: BackupManifest.currentFormat, takenAt: 0, stratusVersion: "x",
                                      files: [BackupManifest.File(path: "notes.txt", bytes: Int64(junk.count), sha256: Backup.sha256(of: junk))], recordCounts: [:])
        try JSONEncoder().encode(manifest).write(to: backup.appendingPathComponent("manifest.json"))
        let target = root.appendingPathComponent("restored")
        #expect { try DataDirectoryRestore.restore(from: backup, to: target) } throws: { ($0 as? StratusError)?.reason.contains("does not hold one") == true }
        // Named stratus.sqlite, but not a database: restored aside, found not to open, never put in place.
        try junk.write(to: backup.appendingPathComponent("stratus.sqlite"))
        var withControl = manifest
        withControl.files = [BackupManifest.File(path: "stratus.sqlite", bytes: Int64(junk.count), sha256: Backup.sha256(of: junk))]
        try JSONEncoder().encode(withControl).write(to: backup.appendingPathComponent("manifest.json"))
        #expect(throws: StratusError.self) { try DataDirectoryRestore.restore(from: backup, to: target) }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test func aTargetThatIsASymbolicLinkIsNotWrittenThrough() throws {
        let source = try PortableBackupFormatTests.backedUp()
        defer { try? FileManager.default.removeItem(at: source.root) }
        let elsewhere = source.root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let link = source.root.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: elsewhere)
        #expect { try DataDirectoryRestore.restore(from: source.backup, to: link) } throws: { ($0 as? StratusError)?.reason.contains("symbolic link") == true }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
        // The same backup restores whole into a new directory.
        let target = source.root.appendingPathComponent("restored")
        try DataDirectoryRestore.restore(from: source.backup, to: target)
        let store = try ServerStore(dataDirectory: target, durability: .relaxed)
        defer { store.close() }
        #expect(try store.containers().count == 1)
    }
}

private extension Error {
    var reason: String { (self as? StratusError)?.reason ?? "\(self)" }
}
