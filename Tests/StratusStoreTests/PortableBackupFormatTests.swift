import Foundation
import StratusTestSupport
import Testing
@testable import StratusModel
@testable import StratusStore

/// The portable backup's files (a rows file per table, checked by the manifest): a store's records of every kind,
/// its token and its asset come back in a new data directory; a damaged file is refused before anything is
/// written, and a crafted one whose manifest agrees with it is a clear error, never a crash.
@Suite struct PortableBackupFormatTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SORTABLE SEARCHABLE,
                count INT64 QUERYABLE SORTABLE,
                tags LIST<STRING> QUERYABLE,
                place LOCATION QUERYABLE,
                image ASSET
            );
        """

    struct Source {
        let root: URL
        let backup: URL
        let token: String
        let asset: AssetValue
        let bytes: Data
    }

    static func backedUp() throws -> Source {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("portable-format-\(UUID().uuidString)")
        let store = try ServerStore(dataDirectory: root.appendingPathComponent("data"), durability: .relaxed)
        defer { store.close() }
        let id = try ContainerID("iCloud.com.example.PortableFormat")
        try store.createContainer(id)
        _ = try store.lifecycle.importSchema(try SchemaParser.parse(Self.schema), into: id)
        let token = try store.credentials.createAPIToken(container: id, environment: .development, name: "app").secret
        let env = try store.environment(id, .development)
        let bytes = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let asset = try env.assets.uploadAsset(bytes)
        let texts = ["plain", "tab\there", "line\nbreak", "é\u{301} 👩‍👩‍👧", ""]
        var operations: [RecordOperation] = []
        for i in 0..<120 {
            var fields: RecordFields = [:]
            fields["title"] = .string(texts[i % texts.count] + " \(i)")
            fields["count"] = .int64(Int64(i) - 60)
            fields["tags"] = .list(.string, [.string("a\(i % 3)"), .string("b")])
            fields["place"] = .location(Location(latitude: Double(i) / 10, longitude: -Double(i) / 7))
            if i == 0 { fields["image"] = .asset(asset) }
            operations.append(RecordOperation(.create, StoredRecord(recordName: "n\(i)", recordType: "Note", fields: fields)))
        }
        _ = try env.records.modify(operations, in: .publicDatabase, actor: RequestActor(userRecordName: "_owner"))
        let backup = root.appendingPathComponent("backup")
        try PortableBackup.create(from: store, to: backup)
        return Source(root: root, backup: backup, token: token, asset: asset, bytes: bytes)
    }

    @Test func aStoreComesBackWholeInANewDataDirectory() throws {
        let source = try Self.backedUp()
        defer { try? FileManager.default.removeItem(at: source.root) }
        let manifest = try Backup.verify(source.backup)
        #expect(manifest.format == BackupManifest.portableFormat && manifest.recordCounts["iCloud.com.example.PortableFormat/development"] == 120)
        let target = try ServerStore(dataDirectory: source.root.appendingPathComponent("restored"), durability: .relaxed)
        defer { target.close() }
        try PortableBackup.restore(from: source.backup, into: target)
        let id = try ContainerID("iCloud.com.example.PortableFormat")
        #expect(try target.credentials.authenticateAPIToken(source.token)?.container == id)
        let env = try target.environment(id, .development)
        let notes = try env.records.lookup((0..<120).map { "n\($0)" }, in: .publicDatabase).map { try $0.get() }
        #expect(notes.count == 120 && notes[1].fields["title"] == .string("tab\there 1") && notes[119].fields["count"] == .int64(59))
        #expect(env.assets.assetContent(checksum: source.asset.fileChecksum) == source.bytes)
        // Indexes were built on the target: a full-text and a list query find what they should.
        let tagged = try env.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("tags"), .listContains, .string("a1"))]), in: .publicDatabase)
        #expect(tagged.records.count == 40)
        #expect(try env.consistency.run().problems.isEmpty)
    }

    @Test func aDamagedOrCraftedFileIsRefused() throws {
        let source = try Self.backedUp()
        defer { try? FileManager.default.removeItem(at: source.root) }
        let manifest = try Backup.verify(source.backup)
        let notes = try #require(manifest.tables?.first { $0.name.hasPrefix("t") && $0.rows == 120 })
        let file = source.backup.appendingPathComponent(notes.path)
        var bytes = try Data(contentsOf: file)

        // One byte changed: refused by its checksum, and nothing is written.
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: file)
        let first = try ServerStore(dataDirectory: source.root.appendingPathComponent("first"), durability: .relaxed)
        #expect { try PortableBackup.restore(from: source.backup, into: first) } throws: { ($0 as? StratusError)?.reason.contains("SHA-256") == true }
        #expect(try first.containers().isEmpty)
        first.close()

        // A file that is not rows at all, with a manifest made to agree: a clear error.
        let garbage = Data([9, 9, 9] + Array(repeating: 0xFF, count: 64))
        try garbage.write(to: file)
        var crafted = manifest
        crafted.files = crafted.files.map { $0.path == notes.path ? BackupManifest.File(path: $0.path, bytes: Int64(garbage.count), sha256: Backup.sha256(of: garbage)) : $0 }
        try JSONEncoder().encode(crafted).write(to: source.backup.appendingPathComponent("manifest.json"))
        let second = try ServerStore(dataDirectory: source.root.appendingPathComponent("second"), durability: .relaxed)
        defer { second.close() }
        #expect { try PortableBackup.restore(from: source.backup, into: second) } throws: { ($0 as? StratusError)?.reason.contains("damaged") == true }
    }
}
