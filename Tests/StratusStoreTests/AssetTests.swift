import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

@Suite struct AssetTests {
    /// The stored contents: files on SQLite, checksums with chunks in the database on PostgreSQL (where nothing
    /// may be written to local disk).
    private func files(_ f: Fixture) -> [String] {
        let root = f.directory.appendingPathComponent("containers/\(f.container.rawValue)/development-assets")
        let e = FileManager.default.enumerator(atPath: root.path)
        let onDisk = (e?.allObjects as? [String] ?? []).filter { $0.count > 3 && !$0.hasPrefix(".tmp") }
        guard f.dev.core.sqlite == nil else { return onDisk }
        #expect(onDisk.isEmpty)
        return (try? f.dev.core.read { db, _ in try db.all("SELECT DISTINCT checksum FROM asset_chunks") { $0.string(0) } }) ?? []
    }

    @Test(arguments: Backend.allCases) func largeContentRoundTripsWhole(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            // More than two of PostgreSQL's 1 MB chunks, with a partial last one.
            let bytes = Data((0..<(2 * 1_048_576 + 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
            let asset = try f.dev.assets.uploadAsset(bytes)
            #expect(f.dev.assets.assetContent(checksum: asset.fileChecksum) == bytes)
            #expect(f.dev.assets.assetPrefix(checksum: asset.fileChecksum, count: 16) == bytes.prefix(16))
            #expect(try f.dev.assets.uploadAsset(Data()).size == 0)
        }
    }

    @Test(arguments: Backend.allCases) func contentIsStoredOnceByChecksumAndRemovedWhenUnreferenced(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let bytes = Data("the photo's bytes".utf8)
            let asset = try f.dev.assets.uploadAsset(bytes)
            #expect(asset.size == Int64(bytes.count))
            #expect(try f.dev.assets.uploadAsset(bytes).fileChecksum == asset.fileChecksum)
            #expect(files(f).count == 1)
            #expect(f.dev.assets.assetContent(checksum: asset.fileChecksum) == bytes)

            let a = try #require(try f.one(.create, note("a", ["photo": .asset(asset)])).record)
            _ = try f.one(.create, note("b", ["photos": .list(.asset, [.asset(asset)])]))
            #expect(try f.dev.records.lookup(["a"], in: f.pub)[0].get().fields["photo"] == .asset(AssetValue(fileChecksum: asset.fileChecksum, size: asset.size, referenceChecksum: asset.referenceChecksum, receipt: asset.receipt)))
            _ = try f.one(.delete, note("a", tag: a.recordChangeTag))
            #expect(files(f).count == 1, "still referenced by b")
            _ = try f.one(.forceReplace, note("b", ["other": .string("x")]))
            #expect(files(f).isEmpty)
            #expect(f.dev.assets.assetContent(checksum: asset.fileChecksum) == nil)
        }
    }

    @Test(arguments: Backend.allCases) func recordsCannotReferenceContentNeverUploaded(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let fake = AssetValue(fileChecksum: Data(repeating: 7, count: 32).base64EncodedString(), size: 10)
            #expect(try f.one(.create, note("a", ["photo": .asset(fake)])).code == .badRequest)
        }
    }

    @Test(arguments: Backend.allCases) func unreferencedUploadsAreCollected(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.dev.assets.uploadAsset(Data("orphan".utf8))
            let kept = try f.dev.assets.uploadAsset(Data("kept".utf8))
            _ = try f.one(.create, note("a", ["photo": .asset(kept)]))
            #expect(try f.dev.assets.collectUnreferencedAssets(olderThan: WallClock.nowMillis() + 1) == 1)
            #expect(files(f).count == 1)
            #expect(f.dev.assets.assetContent(checksum: kept.fileChecksum) != nil)
        }
    }

    @Test(arguments: Backend.allCases) func deletingAZoneReleasesItsAssets(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let zone = ZoneID(zoneName: "Z")
            try f.dev.zones.createZone(zone, in: f.alicePrivate)
            let asset = try f.dev.assets.uploadAsset(Data("zone asset".utf8))
            _ = try f.save([note("a", ["photo": .asset(asset)])], database: f.alicePrivate, zone: zone)
            try f.dev.zones.deleteZone(zone, in: f.alicePrivate)
            #expect(files(f).isEmpty)
        }
    }
}

@Suite struct FieldValueCodecTests {
    @Test func roundTripsEveryKindOfValue() throws {
        let values: [FieldValue] = [
            .string("héllo <b>"), .int64(.min), .int64(.max), .double(-0.5), .bytes(Data([0, 255, 7])), .timestamp(millis: 1_700_000_000_123),
            .reference(Reference(recordName: "r", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_x"), action: .deleteSelf)),
            .reference(Reference(recordName: "plain")),
            .asset(AssetValue(fileChecksum: "c", size: 5, referenceChecksum: "rc", wrappingKey: nil, receipt: "rec")),
            .location(Location(latitude: 1, longitude: 2, horizontalAccuracy: 3, verticalAccuracy: nil, altitude: 5, speed: 6, course: 7, timestamp: 8)),
            .list(.string, [.string("a"), .string("")]), .list(nil, []), .list(.location, [.location(Location(latitude: 0, longitude: 0))]),
        ]
        for v in values { #expect(try FieldValueCodec.decode(FieldValueCodec.encode(v)) == v) }
    }

    @Test func corruptBytesAreAnErrorNotACrash() {
        for bytes in [[], [99], [1, 200], [9, 1, 255, 255, 255, 255, 255, 255, 255, 255, 255, 1], [3, 0, 0]] as [[UInt8]] {
            #expect(throws: StratusError.self) { try FieldValueCodec.decode(Data(bytes)) }
        }
    }
}
