import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusServer
@testable import StratusStore

/// `stratus migrate` copies a data directory into PostgreSQL and back: the demo data and a 100,000-record container
/// come back record by record as they were, queries and sync tokens work on the copy, and a non-empty target is refused.
extension PostgresEndToEnd {
    @Suite struct MigrateTests {
        static let big = "iCloud.com.example.Migrate"
        static let owner = "_" + String(repeating: "c3", count: 16)
        static let friend = "_" + String(repeating: "d4", count: 16)

        /// Every live record of every zone of every database, per container environment.
        static func snapshot(_ store: ServerStore) throws -> [String: Set<StoredRecord>] {
            var out: [String: Set<StoredRecord>] = [:]
            for c in try store.containers() {
                for e in ContainerEnvironment.allCases {
                    let env = try store.environment(c.id, e)
                    let zones = try env.core.read { s, _ in
                        try s.all("SELECT scope, owner, name FROM zones WHERE deleted = 0") { r in (r.string(0) ?? "", r.string(1) ?? "", r.string(2) ?? "") }
                    }
                    for (scope, owner, name) in zones where DatabaseScope(rawValue: scope) != .shared {
                        let db = DatabaseScope(rawValue: scope) == .public ? DatabaseID.publicDatabase : DatabaseID.privateDatabase(of: owner)
                        var sink = StoredRecordSink()
                        _ = try env.records.streamRecords(in: db, zoneID: ZoneID(zoneName: name), into: &sink)
                        out["\(c.id.rawValue)/\(e.rawValue)/\(scope)/\(owner)/\(name)", default: []].formUnion(sink.records)
                    }
                }
            }
            return out
        }

        /// A container with 100,000 records of every kind of value, in several zones, with assets, a share and a subscription.
        static func fill(_ store: ServerStore) throws -> (syncToken: String, asset: AssetValue) {
            let c = try ContainerID(Self.big)
            try store.createContainer(c)
            try store.lifecycle.importSchema(try SchemaParser.parse("""
                DEFINE SCHEMA
                    RECORD TYPE Item (
                        "___recordID" REFERENCE QUERYABLE,
                        title STRING QUERYABLE SORTABLE SEARCHABLE,
                        n INT64 QUERYABLE SORTABLE,
                        score DOUBLE SORTABLE,
                        tags LIST<STRING> QUERYABLE,
                        spot LOCATION QUERYABLE,
                        blob BYTES,
                        photo ASSET,
                        parentItem REFERENCE QUERYABLE,
                        GRANT READ TO "_world"
                    );
                """), into: c)
            let env = try store.environment(c, .development)
            let actor = RequestActor(userRecordName: owner, deviceID: "migrate")
            let asset = try env.assets.uploadAsset(Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
            var rng = SystemRandomNumberGenerator()
            for batch in 0..<500 {
                let ops = (0..<200).map { i -> RecordOperation in
                    let k = batch * 200 + i
                    var fields: RecordFields = [
                        "title": .string("item \(k) ünïcödé \(["alpha", "beta", "gamma"][k % 3])"), "n": .int64(Int64(k)),
                        "score": .double(Double(Int.random(in: 0...1_000_000, using: &rng)) / 7), "tags": .list(.string, [.string("t\(k % 10)"), .string("all")]),
                        "spot": .location(Location(latitude: Double(k % 180) - 89.5, longitude: Double(k % 360) - 179.5)),
                        "blob": .bytes(Data([UInt8(k & 0xff), 0, 0xff])),
                    ]
                    if k % 7 == 0 { fields["parentItem"] = .reference(Reference(recordName: "i\(k - 1)")) }
                    if k == 5 { fields["photo"] = .asset(asset) }
                    if k % 11 == 0 { fields["score"] = nil }
                    return RecordOperation(.create, StoredRecord(recordName: "i\(k)", recordType: "Item", fields: fields))
                }
                let results = try env.records.modify(ops, in: .publicDatabase, actor: actor)
                if let e = results.compactMap(\.error).first { throw e }
            }
            // A private zone with a shared hierarchy, and a subscription.
            let mine = DatabaseID.privateDatabase(of: Self.owner)
            let zone = ZoneID(zoneName: "Trips")
            _ = try env.zones.createZone(zone, in: mine)
            let users: @Sendable (ShareRequest.Lookup) -> ContainerUser? = { _ in ContainerUser(userRecordName: friend, email: "friend@example.com") }
            var share = RecordOperation(.create, StoredRecord(recordName: "share-1", recordType: Share.recordType))
            share.share = ShareRequest(forRecord: "trip", participants: [ShareRequest.Invitee(lookup: .userRecordName(friend), permission: .readWrite)])
            let made = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "trip", recordType: "Item", fields: ["title": .string("Lisbon")]))],
                                      in: mine, zoneID: zone, actor: actor)
            #expect(made[0].error == nil)
            let shared = try env.records.modify([share], in: mine, zoneID: zone, actor: actor, users: users)
            #expect(shared[0].error == nil, "\(String(describing: shared[0].error))")
            try env.subscriptions.saveSubscription("trips", document: #"{"subscriptionID":"trips","subscriptionType":"database"}"#, in: .private, owner: owner)
            let token = try env.zones.zoneChanges(in: mine, zoneID: zone, since: nil).syncToken
            _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "later", recordType: "Item", fields: ["title": .string("after the token")]))],
                               in: mine, zoneID: zone, actor: actor)
            return (token, asset)
        }

        @Test func dataDirectoryToPostgresAndBackRecordByRecord() async throws {
            guard TestPostgres.url != nil else { #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here"); return }
            guard let pg = try await TestPostgres.freshDatabase() else { return }
            defer { pg.drop() }
            let source = Executables.temporaryDirectory(), back = Executables.temporaryDirectory()
            defer {
                if let keep = ProcessInfo.processInfo.environment["STRATUS_KEEP_MIGRATE_SOURCE"] { try? FileManager.default.moveItem(at: source, to: URL(fileURLWithPath: keep)) }
                try? FileManager.default.removeItem(at: source); try? FileManager.default.removeItem(at: back)
            }

            let (original, token, asset) = try await Executables.offPool { () -> ([String: Set<StoredRecord>], String, AssetValue) in
                let store = try ServerStore(dataDirectory: source, durability: .relaxed)
                defer { store.close() }
                try DemoData.install(into: store)
                let (token, asset) = try Self.fill(store)
                return (try Self.snapshot(store), token, asset)
            }
            #expect(original.values.reduce(0) { $0 + $1.count } > 100_000)

            var clock = ContinuousClock.now
            let there = try await Executables.run("stratus", ["migrate", "--from-data", source.path, "--to", pg.url])
            print("migrate to PostgreSQL: \(ContinuousClock.now - clock)"); clock = .now
            #expect(there.status == 0, "\(there.stderr)")
            #expect(there.stdout.contains("counts and checksums match"), "\(there.stdout)")
            // A target that holds data is refused, and left as it was.
            let again = try await Executables.run("stratus", ["migrate", "--from-data", source.path, "--to", pg.url])
            #expect(again.status != 0 && again.stderr.contains("not empty"), "\(again.stderr)")

            try await Executables.offPool {
                let store = try ServerStore(databaseURL: pg.url, poolSize: 4)
                defer { store.close() }
                #expect(try Self.snapshot(store) == original, "PostgreSQL holds every record as it was")
                let env = try store.environment(try ContainerID(Self.big), .development)
                // Queries use PostgreSQL's structures: full text, list keys, location, sorting with markers.
                let text = try env.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("title"), .containsAllTokens, .string("gamma ünïcödé"))], resultsLimit: 200),
                                         in: .publicDatabase)
                #expect(text.records.count == 200 && text.records.allSatisfy { r in if case .string(let t) = r.fields["title"] { t.contains("gamma") } else { false } })
                let listed = try env.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .listContains, .string("t3"))], resultsLimit: 200), in: .publicDatabase)
                #expect(listed.records.count == 200 && listed.continuationMarker != nil)
                let near = try env.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("spot"), .near, .location(Location(latitude: 0.5, longitude: 90.5)), distance: 1_000)]),
                                         in: .publicDatabase)
                #expect(!near.records.isEmpty && near.records.allSatisfy { $0.fields["spot"] == .location(Location(latitude: 0.5, longitude: 90.5)) })
                // The environment's secret came along: a sync token taken before the migration continues after it.
                let changes = try env.zones.zoneChanges(in: .privateDatabase(of: Self.owner), zoneID: ZoneID(zoneName: "Trips"), since: token)
                #expect(changes.changed.map(\.recordName) == ["later"])
                #expect(env.assets.assetContent(checksum: asset.fileChecksum)?.count == 1_500_000)
                #expect(try env.records.lookup(["i5"], in: .publicDatabase)[0].get().fields["photo"] != nil)
                // New writes get fresh ids (the identity columns continue after the copied ones).
                let w = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "new", recordType: "Item", fields: ["n": .int64(-1)]))],
                                       in: .publicDatabase, actor: RequestActor(userRecordName: Self.owner))
                #expect(w[0].error == nil, "\(String(describing: w[0].error))")
                _ = try env.records.modify([RecordOperation(.forceDelete, StoredRecord(recordName: "new", recordType: "Item"))], in: .publicDatabase, actor: RequestActor(userRecordName: Self.owner))
            }

            print("checks on PostgreSQL: \(ContinuousClock.now - clock)"); clock = .now
            let home = try await Executables.run("stratus", ["migrate", "--from", pg.url, "--to-data", back.path])
            print("migrate back: \(ContinuousClock.now - clock)"); clock = .now
            #expect(home.status == 0, "\(home.stderr)")
            try await Executables.offPool {
                let store = try ServerStore(dataDirectory: back, durability: .relaxed)
                defer { store.close() }
                #expect(try Self.snapshot(store) == original, "and back in a data directory, every record as it was")
                let env = try store.environment(try ContainerID(Self.big), .development)
                #expect(env.assets.assetContent(checksum: asset.fileChecksum)?.count == 1_500_000)
                #expect(try env.integrityCheck() == "ok")
                let text = try env.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("title"), .containsAllTokens, .string("beta"))], resultsLimit: 10),
                                         in: .publicDatabase)
                #expect(text.records.count == 10)
            }
        }
    }
}
