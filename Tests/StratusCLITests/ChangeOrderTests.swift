import Foundation
import Synchronization
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// Two nodes on one PostgreSQL, many users: writers on their own zones and on one zone they all share, on both
/// nodes, and a third node (another process) killed with SIGKILL halfway; readers follow every zone's
/// `changes/zone` on the other node throughout. No record is seen twice, every acknowledged record is seen, a
/// token taken midway resumes on the other node to exactly what its reader saw after it, and `changes/database`
/// names the zones written. This is the guarantee any change to how changes are ordered must keep.
extension PostgresEndToEnd {
    @Suite struct ChangeOrderTests {
        static let container = "iCloud.com.example.Order"

        /// A zone followed by the test: its database, its name, and the key the writers' acknowledgements use.
        struct Followed: Sendable {
            let database: DatabaseID
            let zone: ZoneID
            let key: String
        }

        /// Everything `changes/zone` hands out from `token` until it says no more is coming: the names in order, and the
        /// last token.
        static func drain(_ env: EnvironmentStore, _ f: Followed, from token: String?) throws -> ([String], String?) {
            var names: [String] = [], token = token
            while true {
                let page = try env.zones.zoneChanges(in: f.database, zoneID: f.zone, since: token, resultsLimit: 50)
                names += page.changed.map(\.recordName)
                token = page.syncToken
                if !page.moreComing { return (names, token) }
            }
        }

        @Test func manyWritersOnTwoNodesAreSeenOnceAndTokensResumeExactly() async throws {
            guard TestPostgres.url != nil else { #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here"); return }
            guard let db = try await TestPostgres.freshDatabase() else { return }
            defer { db.drop() }
            let id = try ContainerID(Self.container)
            let users = (0..<4).map { "_" + String(format: "%032x", 0xabc0 + $0) }
            let sharedOwner = users[0]
            var followed = users.map { Followed(database: .privateDatabase(of: $0), zone: ZoneID(zoneName: "Own"), key: "\($0)/Own") }
            followed.append(Followed(database: .privateDatabase(of: sharedOwner), zone: ZoneID(zoneName: "Common"), key: "common"))
            let zones = followed
            let (a, b) = try await Executables.offPool { () -> (ServerStore, ServerStore) in
                let a = try ServerStore(databaseURL: db.url, poolSize: 8), b = try ServerStore(databaseURL: db.url, poolSize: 8)
                try a.createContainer(id)
                let env = try a.environment(id, .development)
                for f in zones { try env.zones.createZone(f.zone, in: f.database) }
                // The record type and its fields exist before the writers start (schema on write would otherwise race).
                _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "type", recordType: "Crash", fields: [
                    "batch": .int64(0), "text": .string("x"), "tags": .list(.string, [.string("t")]),
                ]))], in: .publicDatabase, actor: .system)
                return (a, b)
            }
            defer { a.close(); b.close() }
            let envA = try a.environment(id, .development), envB = try b.environment(id, .development)
            let dbStart = try envB.zones.databaseChanges(in: .privateDatabase(of: sharedOwner), since: nil).syncToken

            // Writers: each user into their own zone, and two more into the common zone, on alternating nodes.
            let stop = Atomic(false), acked = Mutex<[String: Set<String>]>([:]), errors = Mutex<[String]>([])
            var writers: [Thread] = []
            for (w, f) in (zones + [zones[4]]).enumerated() {
                let env = w % 2 == 0 ? envA : envB
                let owner = f.key == "common" ? sharedOwner : users[w]
                writers.append(Thread {
                    var i = 0
                    while !stop.load(ordering: .relaxed) {
                        let names = (0..<3).map { "w\(w)-\(i)-\($0)" }
                        do {
                            let results = try env.records.modify(names.map { RecordOperation(.create, StoredRecord(recordName: $0, recordType: "Crash", fields: ["batch": .int64(Int64(i))])) },
                                                                 in: f.database, zoneID: f.zone, actor: RequestActor(userRecordName: owner))
                            if results.allSatisfy({ $0.error == nil }) { acked.withLock { $0[f.key, default: []].formUnion(names) } }
                        } catch { errors.withLock { $0.append("writer \(w): \(error)") } }
                        i += 1
                    }
                })
            }
            // Readers: every zone followed on the node its writers use least, collecting what each page hands out.
            let seen = Mutex<[String: [String]]>([:]), midway = Mutex<[String: (token: String, index: Int)]>([:]), half = Atomic(false)
            var readers: [Thread] = []
            for (r, f) in zones.enumerated() {
                let env = r % 2 == 0 ? envB : envA
                readers.append(Thread {
                    var token: String?
                    while !stop.load(ordering: .relaxed) {
                        do {
                            let page = try env.zones.zoneChanges(in: f.database, zoneID: f.zone, since: token, resultsLimit: 50)
                            seen.withLock { $0[f.key, default: []] += page.changed.map(\.recordName) }
                            token = page.syncToken
                            if half.load(ordering: .relaxed), let t = token {
                                midway.withLock { m in if m[f.key] == nil { m[f.key] = (t, seen.withLock { $0[f.key]?.count ?? 0 }) } }
                            }
                        } catch { errors.withLock { $0.append("reader \(r): \(error)") } }
                        usleep(2_000)
                    }
                })
            }
            // A third node in its own process writing into the common zone, killed with SIGKILL halfway.
            let third = ChildProcess()
            third.executableURL = Executables.url("stratus-bench")
            third.arguments = ["writer", "--database-url", db.url, "--container", Self.container, "--user", sharedOwner, "--zone", "Common", "--batch-size", "10"]
            let out = Pipe()
            third.standardOutput = out
            try third.run()
            // What the third node prints, read as it comes: it is killed only once it has acknowledged writes (a
            // loaded machine may take longer than the usual two seconds to start it).
            let printed = Mutex(""), reader = Thread {
                while case let d = out.fileHandleForReading.availableData, !d.isEmpty {
                    printed.withLock { $0 += String(decoding: d, as: UTF8.self) }
                }
            }
            reader.start()
            for t in writers + readers { t.start() }
            try await Task.sleep(for: .seconds(2))
            let deadline = ContinuousClock.now + .seconds(60)
            while !printed.withLock({ $0.contains("ack ") }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            half.store(true, ordering: .relaxed)
            kill(third.processIdentifier, SIGKILL)
            third.waitUntilExit()
            try await Task.sleep(for: .seconds(2))
            stop.store(true, ordering: .relaxed)
            while !(writers + readers + [reader]).allSatisfy(\.isFinished) { try await Task.sleep(for: .milliseconds(20)) }
            let thirdAcked = printed.withLock { $0 }
                .split(separator: "\n").compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }
            #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0.prefix(5) })")
            #expect(!thirdAcked.isEmpty, "the killed node acknowledged writes before it died")

            try await Executables.offPool {
                for f in zones {
                    // What the reader saw, then the rest of the feed from where it stopped: once each, everything acknowledged.
                    let saw = seen.withLock { $0[f.key] ?? [] }
                    let mid = try #require(midway.withLock { $0[f.key] }, "\(f.key): no token was taken midway")
                    let (rest, _) = try Self.drain(envA, f, from: nil)
                    #expect(Set(rest).count == rest.count, "\(f.key): the feed hands a record out twice")
                    #expect(Set(saw).count == saw.count, "\(f.key): the reader was handed a record twice")
                    var expected = acked.withLock { $0[f.key] ?? [] }
                    if f.key == "common" { for n in thirdAcked { for i in 0..<10 { expected.insert("b\(n)-\(i)") } } }
                    #expect(expected.isSubset(of: Set(rest)), "\(f.key): \(expected.subtracting(rest).count) acknowledged records missing from the feed")
                    #expect(Set(saw).isSubset(of: Set(rest)))
                    // The token taken midway resumes, on the node its reader did not use, to exactly what came after it.
                    let other = zones.firstIndex(where: { $0.key == f.key })! % 2 == 0 ? envA : envB
                    let (afterMid, _) = try Self.drain(other, f, from: mid.token)
                    #expect(Set(afterMid) == Set(rest).subtracting(saw.prefix(mid.index)), "\(f.key): resuming the midway token gave \(afterMid.count) records")
                    #expect(Set(afterMid).isDisjoint(with: Set(saw.prefix(mid.index))), "\(f.key): a resumed token handed out a record again")
                }
                // changes/database names both zones of the common zone's owner as changed since the start.
                let changed = try envA.zones.databaseChanges(in: .privateDatabase(of: sharedOwner), since: dbStart).changedZones.map(\.zoneID.zoneName)
                #expect(Set(changed) == ["Own", "Common"])
            }
        }
    }
}
