import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// Two `stratus serve` processes on one PostgreSQL database behave as one server: what one writes the other reads
/// at once, markers and tokens minted by one work on the other, a revoked token stops working on both within a
/// second, a write on one notifies a listener on the other, one node killed mid-write loses no acknowledged write
/// while the other serves on, and both ride out a restart of PostgreSQL by themselves.
/// The PostgreSQL end-to-end suites run one after the other: each starts servers or a migration that fills the
/// machine, and the two-node test measures how fast a node hears another.
@Suite(.serialized) enum PostgresEndToEnd {}

extension ServeProcess {
    convenience init(databaseURL: String) async throws {
        try await self.init(arguments: ["--database-url", databaseURL, "--database-pool-size", "6"])
    }
}

extension PostgresEndToEnd {
    @Suite struct TwoNodeTests {
        static let container = "iCloud.com.example.TwoNodes"
        static let alice = "_" + String(repeating: "a7", count: 16)

        typealias Node = ServeProcess

        struct Reply: Sendable {
            var status: Int
            var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
            var body: Data
            var records: [[String: Any]] { json["records"] as? [[String: Any]] ?? [] }
        }

        static let session: URLSession = {
            let c = URLSessionConfiguration.ephemeral
            c.timeoutIntervalForRequest = 40
            return URLSession(configuration: c)
        }()

        static func call(_ node: Node, _ path: String, _ body: String, token: String, user: String, db: String = "public") async throws -> Reply {
            var req = URLRequest(url: URL(string: "\(node.url)database/1/\(container)/development/\(db)/\(path)?ckAPIToken=\(token)&ckWebAuthToken=\(user)")!)
            req.httpMethod = "POST"
            req.httpBody = Data(body.utf8)
            let (d, r) = try await session.data(for: req)
            return Reply(status: (r as? HTTPURLResponse)?.statusCode ?? 0, body: d)
        }

        static func create(_ names: [String], zone: String? = nil) -> String {
            let z = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
            let ops = names.map { #"{"operationType":"create","record":{"recordName":"\#($0)","recordType":"Item","fields":{"n":{"value":\#($0.hashValue & 0xffff)},"title":{"value":"item \#($0)"}}}}"# }
            return #"{\#(z)"operations":[\#(ops.joined(separator: ","))]}"#
        }

        static func names(_ reply: Reply) -> [String] { reply.records.compactMap { $0["recordName"] as? String } }

        @Test func twoServersOnOneDatabaseBehaveAsOne() async throws {
            guard TestPostgres.url != nil else { #expect(!TestPostgres.required, "STRATUS_TEST_POSTGRES_URL is required here"); return }
            let cluster = try ThrowawayPostgres()
            defer { cluster.stop() }
            let db = cluster.url
            // Set-up through the CLI and the store, as an operator would: a container, an API token, a signed-in user.
            #expect(try await Executables.run("stratus", ["container", "create", Self.container, "--database-url", db]).status == 0)
            let (token, tokenID, user) = try await Executables.offPool { () -> (String, Int64, String) in
                let store = try ServerStore(databaseURL: db, poolSize: 2)
                defer { store.close() }
                let c = try ContainerID(Self.container)
                let (t, secret) = try store.credentials.createAPIToken(container: c, environment: .development, name: "two nodes")
                return (secret, t.id, try store.accounts.createWebAuthToken(container: c, environment: .development, userRecordName: Self.alice))
            }
            let node1 = try await Node(databaseURL: db)
            let node2 = try await Node(databaseURL: db)
            defer { node1.stop(); node2.stop() }

            // Written on node 1, read on node 2 at once.
            let first = (0..<250).map { "r\($0)" }
            for half in [first.prefix(125), first.suffix(125)] {
                let made = try await Self.call(node1, "records/modify", Self.create(Array(half)), token: token, user: user)
                #expect(made.status == 200 && made.records.count == 125 && made.records.allSatisfy { $0["serverErrorCode"] == nil }, "\(String(decoding: made.body, as: UTF8.self).prefix(300))")
            }
            let looked = try await Self.call(node2, "records/lookup", #"{"records":[{"recordName":"r0"},{"recordName":"r249"}]}"#, token: token, user: user)
            #expect(Self.names(looked) == ["r0", "r249"] && looked.records.allSatisfy { $0["serverErrorCode"] == nil })

            // An upload URL handed out by node 1 takes the bytes on node 2; the download URL node 2 hands out for the
            // record serves them on node 1 (tickets and signatures use the environment's secret, not a node's memory).
            let asked = try await Self.call(node1, "assets/upload", #"{"tokens":[{"recordType":"Attachment","fieldName":"file"}]}"#, token: token, user: user)
            let uploadURL = try #require(((asked.json["tokens"] as? [[String: Any]])?.first?["url"] as? String))
            let node2Upload = uploadURL.replacingOccurrences(of: String(node1.url.dropLast()), with: String(node2.url.dropLast()))
            var upload = URLRequest(url: URL(string: node2Upload)!)
            upload.httpMethod = "POST"
            upload.httpBody = Data("bytes from node 2".utf8)
            let (receiptBody, receiptResponse) = try await Self.session.data(for: upload)
            #expect((receiptResponse as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: receiptBody, as: UTF8.self))")
            let single = try #require(((try? JSONSerialization.jsonObject(with: receiptBody)) as? [String: Any])?["singleFile"] as? [String: Any])
            let receipt = String(decoding: try JSONSerialization.data(withJSONObject: single), as: UTF8.self)
            let saved = try await Self.call(node2, "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"with-file","recordType":"Attachment","fields":{"file":{"value":\#(receipt)}}}}]}"#,
                                           token: token, user: user)
            let downloadURL = try #require(((saved.records.first?["fields"] as? [String: Any])?["file"] as? [String: Any]).flatMap { ($0["value"] as? [String: Any])?["downloadURL"] as? String },
                                           "\(String(decoding: saved.body, as: UTF8.self).prefix(300))")
            let onNode1 = downloadURL.replacingOccurrences(of: String(node2.url.dropLast()), with: String(node1.url.dropLast()))
            let (content, _) = try await Self.session.data(from: URL(string: onNode1)!)
            #expect(String(decoding: content, as: UTF8.self) == "bytes from node 2")

            // A query paged with node 1's marker on node 2 (and back): every record once.
            var seen: [String] = []
            var marker: String? = nil
            var turn = 0
            repeat {
                let m = marker.map { #","continuationMarker":"\#($0)""# } ?? ""
                let page = try await Self.call(turn % 2 == 0 ? node1 : node2, "records/query",
                                               #"{"query":{"recordType":"Item","sortBy":[{"fieldName":"n"}]},"resultsLimit":60\#(m)}"#, token: token, user: user)
                #expect(page.status == 200, "\(String(decoding: page.body, as: UTF8.self))")
                seen += Self.names(page)
                marker = page.json["continuationMarker"] as? String
                turn += 1
            } while marker != nil && turn < 20
            #expect(seen.count == 250 && Set(seen) == Set(first), "pages alternate between the nodes")

            // A write on node 1 notifies a web courier poll waiting on node 2.
            _ = try await Self.call(node1, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Inbox"}}}]}"#, token: token, user: user, db: "private")
            let sub = try await Self.call(node1, "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"inbox","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"}}}]}"#,
                                          token: token, user: user, db: "private")
            #expect(sub.status == 200)
            // A sync token from node 2 continues on node 1.
            _ = try await Self.call(node1, "records/modify", Self.create((0..<150).map { "m\($0)" }, zone: "Inbox"), token: token, user: user, db: "private")
            let changes = try await Self.call(node2, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Inbox"}}],"resultsLimit":100}"#, token: token, user: user, db: "private")
            let zone = (changes.json["zones"] as? [[String: Any]])?.first
            let syncToken = try #require(zone?["syncToken"] as? String, "\(String(decoding: changes.body, as: UTF8.self).prefix(300))")
            let rest = try await Self.call(node1, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Inbox"},"syncToken":"\#(syncToken)"}]}"#, token: token, user: user, db: "private")
            let restZone = (rest.json["zones"] as? [[String: Any]])?.first
            #expect((zone?["records"] as? [Any])?.count == 100 && (restZone?["records"] as? [Any])?.count == 50)
            var courier = URLRequest(url: URL(string: "\(node2.url)device/1/\(Self.container)/development/tokens/create?ckAPIToken=\(token)&ckWebAuthToken=\(user)")!)
            courier.httpMethod = "POST"
            courier.httpBody = Data(#"{"apnsEnvironment":"DEVELOPMENT"}"#.utf8)
            let (created, _) = try await Self.session.data(for: courier)
            let courierURL = try #require(((try JSONSerialization.jsonObject(with: created)) as? [String: Any])?["webcourierURL"] as? String)
            let onNode2 = courierURL.replacingOccurrences(of: node1.url, with: node2.url)
            // The poll re-reads the log every second by itself, so one fast answer could be luck: of eight, most must
            // come fast, counted from when node 1 acknowledged the write (its commit had rung then).
            var latencies: [Duration] = []
            for round in 0..<8 {
                async let heard = Self.session.data(from: URL(string: onNode2)!)
                try await Task.sleep(for: .milliseconds(300))
                _ = try await Self.call(node1, "records/modify", Self.create(["mail\(round)"], zone: "Inbox"), token: token, user: user, db: "private")
                let acknowledged = ContinuousClock.now
                let (note, _) = try await heard
                latencies.append(ContinuousClock.now - acknowledged)
                let ck = ((try? JSONSerialization.jsonObject(with: note)) as? [String: Any])?["ck"] as? [String: Any]
                #expect((ck?["fet"] as? [String: Any])?["sid"] as? String == "inbox", "\(String(decoding: note, as: UTF8.self))")
            }
            #expect(latencies.sorted()[latencies.count / 2] < .milliseconds(250), "polls on node 2 hear node 1's writes at once: \(latencies)")

            // A token revoked (here by the CLI, a third process) is refused by both nodes within a second.
            let revoked = try await Executables.run("stratus", ["token", "revoke", "--container", Self.container, "\(tokenID)", "--database-url", db])
            #expect(revoked.status == 0, "\(revoked.stderr)")
            let revokedAt = ContinuousClock.now
            for node in [node1, node2] {
                // Within a second: no request sent a second or more after the revocation is answered. (A busy machine
                // may take long to answer one; when it was sent is what counts.)
                var refused = false
                var lastAccepted: Duration = .zero
                while !refused && ContinuousClock.now - revokedAt < .seconds(10) {
                    let sent = ContinuousClock.now - revokedAt
                    refused = try await Self.call(node, "records/lookup", #"{"records":[{"recordName":"r0"}]}"#, token: token, user: user).status == 401
                    if !refused { lastAccepted = sent; try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(refused && lastAccepted < .seconds(1), "refused within a second on \(node.url): last accepted request sent \(lastAccepted) after")
            }
            let fresh = try await Executables.offPool { () -> String in
                let store = try ServerStore(databaseURL: db, poolSize: 2)
                defer { store.close() }
                return try store.credentials.createAPIToken(container: try ContainerID(Self.container), environment: .development, name: "after").secret
            }

            // Node 1 killed with SIGKILL in the middle of writes: node 2 serves on, and holds every write node 1 acknowledged.
            let acked = Acked()
            let writer = Task {
                for batch in 0..<10_000 {
                    let names = (0..<20).map { "k\(batch)-\($0)" }
                    guard let r = try? await Self.call(node1, "records/modify", Self.create(names), token: fresh, user: user), r.status == 200 else { return }
                    if r.records.count == 20 && r.records.allSatisfy({ $0["serverErrorCode"] == nil }) { acked.add(names) }
                }
            }
            while acked.count < 200 { try await Task.sleep(for: .milliseconds(20)) }
            node1.kill9()
            _ = await writer.value
            let ackedNames = acked.names
            #expect(node1.process.terminationReason == .uncaughtSignal)
            var missing: [String] = []
            for chunk in stride(from: 0, to: ackedNames.count, by: 200).map({ Array(ackedNames[$0..<min($0 + 200, ackedNames.count)]) }) {
                let body = #"{"records":[\#(chunk.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ","))]}"#
                let r = try await Self.call(node2, "records/lookup", body, token: fresh, user: user)
                #expect(r.status == 200)
                missing += r.records.filter { $0["serverErrorCode"] != nil }.compactMap { $0["recordName"] as? String }
            }
            #expect(missing.isEmpty, "\(missing.count) of \(ackedNames.count) acknowledged records are missing on node 2")

            // PostgreSQL restarted under load: requests meanwhile are SERVICE_UNAVAILABLE (503 with Retry-After) or
            // succeed, none hangs, and node 2 serves again afterwards without a restart of its own.
            let statuses = Statuses()
            let running = Acked()
            let load = Task {
                // Stopped by a flag, not by cancelling: a cancelled request would count as a failed one.
                while running.count == 0 {
                    let started = ContinuousClock.now
                    let s = (try? await Self.call(node2, "records/lookup", #"{"records":[{"recordName":"r1"}]}"#, token: fresh, user: user))?.status ?? -1
                    statuses.add(s, ContinuousClock.now - started)
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            try await Executables.offPool { try cluster.restart() }
            var healed = false
            let back = ContinuousClock.now
            while !healed && ContinuousClock.now - back < .seconds(20) {
                healed = try await Self.call(node2, "records/lookup", #"{"records":[{"recordName":"r1"}]}"#, token: fresh, user: user).status == 200
                if !healed { try await Task.sleep(for: .milliseconds(100)) }
            }
            running.add(["stop"])
            _ = await load.value
            #expect(healed, "node 2 serves again once PostgreSQL is back")
            let seenStatuses = Set(statuses.all.map(\.0))
            print("two nodes: notification latencies \(latencies); \(ackedNames.count) writes acknowledged before node 1 was killed; during the restart \(statuses.all.count) requests: \(Dictionary(grouping: statuses.all.map(\.0), by: { $0 }).mapValues(\.count))")
            #expect(seenStatuses.isSubset(of: [200, 503]), "only successes and SERVICE_UNAVAILABLE while PostgreSQL restarts: \(seenStatuses)")
            #expect(statuses.all.allSatisfy { $0.1 < .seconds(35) }, "no request hangs past its time budget")
            // And writes work again on the surviving node.
            let after = try await Self.call(node2, "records/modify", Self.create(["after-restart"]), token: fresh, user: user)
            #expect(after.status == 200 && after.records.first?["serverErrorCode"] == nil)
        }

        final class Acked: @unchecked Sendable {
            private let lock = NSLock()
            private var list: [String] = []
            func add(_ n: [String]) { lock.lock(); list += n; lock.unlock() }
            var count: Int { lock.lock(); defer { lock.unlock() }; return list.count }
            var names: [String] { lock.lock(); defer { lock.unlock() }; return list }
        }

        final class Statuses: @unchecked Sendable {
            private let lock = NSLock()
            private var list: [(Int, Duration)] = []
            func add(_ s: Int, _ d: Duration) { lock.lock(); list.append((s, d)); lock.unlock() }
            var all: [(Int, Duration)] { lock.lock(); defer { lock.unlock() }; return list }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
