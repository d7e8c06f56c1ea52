import Foundation
import StratusModel
import StratusServer
import StratusStore

/// The crowd and the flood (see `HostileScenario`): ten users' thousand subscriptions each on the type another user
/// writes, and a user who floods the log for themselves while another's notifications must survive it.
extension HostileScenario {
    static let crowdUsers = 10
    static let crowdSubscriptions = 1_000
    /// Categories the crowd's subscriptions name; the writer's items pick among twice as many, so about half match one.
    static let categories = 10_000
    static let flooder = "_" + String(repeating: "f1", count: 16)
    /// Users whose thousand subscriptions each the flood fires (the flooder among them).
    static let floodSubscribers = 10
    /// The flood's writers and each one's batches of `floodBatch` records (the probe's: three writers of 50).
    static let floodWriters = 3, floodBatches = 5, floodBatch = 50
    static let victim = "_" + String(repeating: "c7", count: 16)
    /// The log's budget in this run: the flood goes far past the flooder's share of it (an eighth).
    static let floodLogBudget: Int64 = 64 << 20

    /// Ten users with a thousand subscriptions each on Items of one category over a price (a quarter: of a title
    /// prefix over a price, no equality term); the flooder with a thousand on the "flood" category; the victim with one
    /// on the "victim" category.
    static func subscribeCrowd(_ env: EnvironmentStore) throws {
        var rng = SystemRandomNumberGenerator()
        func save(_ owner: String, _ id: String, category: String?, over price: Int64?,
                  titled prefix: String? = nil) throws {
            var filters: [String] = []
            if let category {
                filters.append(#"{"comparator":"EQUALS","fieldName":"category","fieldValue":{"value":"\#(category)"}}"#)
            }
            if let prefix {
                filters.append(#"{"comparator":"BEGINS_WITH","fieldName":"title","fieldValue":{"value":"\#(prefix)"}}"#)
            }
            if let price {
                filters.append(#"{"comparator":"GREATER_THAN","fieldName":"price","fieldValue":{"value":\#(price),"type":"INT64"}}"#)
            }
            let doc = #"{"subscriptionType":"query","query":{"recordType":"Item","filterBy":[\#(filters.joined(separator: ","))]},"firesOn":["create","update"],"notificationInfo":{"alertBody":"a new item","shouldSendContentAvailable":true,"desiredKeys":["title"]}}"#
            try env.subscriptions.saveSubscription(id, wire: try JSON.parse(Data(doc.utf8)), in: .public, owner: owner)
        }
        for u in 0..<crowdUsers {
            let owner = "_c" + String(format: "%030d", u)
            for i in 0..<crowdSubscriptions {
                // A quarter have no equality term (a title prefix and a price): they are tested against every write.
                if i % 4 == 3 {
                    try save(owner, "c\(i)", category: nil, over: Int64.random(in: 0..<50, using: &rng),
                             titled: "z\(Int.random(in: 0..<categories, using: &rng))")
                } else {
                    try save(owner, "c\(i)", category: "c\(Int.random(in: 0..<categories, using: &rng))",
                             over: Int64.random(in: 0..<50, using: &rng))
                }
            }
        }
        // Ten users' thousand subscriptions each on the "flood" category: each flood record fires ten thousand.
        for u in 0..<floodSubscribers {
            for i in 0..<crowdSubscriptions { try save(u == 0 ? flooder : "_f" + String(format: "%030d", u), "f\(i)",
                                                       category: "flood", over: nil) }
        }
        try save(victim, "mine", category: "victim", over: nil)
    }

    static func item(_ name: String, category: String, price: Int) -> String {
        #"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Item","fields":{"title":{"value":"item \#(name)"},"category":{"value":"\#(category)"},"price":{"value":\#(price)}}}}"#
    }

    func crowdAndFlood(app: StratusApplication, crowd: ContainerID, quiet: ContainerID, writeCrowd: String,
                       writeQuiet: String,
                       query: (ContainerID, String) throws -> String) async throws {
        let port = app.port
        func writes(_ c: ContainerID, _ q: String, _ tag: String, count: Int,
                    category: (Int) -> String) throws -> [Double] {
            try Self.timedModifies(port: port, c, q, count: count) { i in
                let one = Self.item("\(tag)-\(i)", category: category(i), price: i % 100)
                return #"{"operations":[\#(one)]}"#
            }
        }
        let random = { (_: Int) in "c\(Int.random(in: 0..<(2 * Self.categories)))" }
        _ = try writes(quiet, writeQuiet, "warm", count: 50, category: random)
        _ = try writes(crowd, writeCrowd, "warm", count: 50, category: random)
        var quietTimes: [Double] = [], crowdTimes: [Double] = []
        for round in 1...rounds {
            quietTimes += try writes(quiet, writeQuiet, "q\(round)", count: self.writes, category: random)
            crowdTimes += try writes(crowd, writeCrowd, "c\(round)", count: self.writes, category: random)
            stderr("crowd round \(round): quiet p99 \(String(format: "%.2f", percentile(quietTimes, 0.99))) ms, crowd p99 \(String(format: "%.2f", percentile(crowdTimes, 0.99))) ms")
        }
        Figure(scenario: "hostile", metric: "crowd_subscriptions",
               value: Double(Self.crowdUsers * Self.crowdSubscriptions), unit: "subscriptions").print()
        Figure(scenario: "hostile", metric: "crowd_quiet_modify_p50_ms", value: percentile(quietTimes, 0.5),
               unit: "ms").print()
        Figure(scenario: "hostile", metric: "crowd_modify_p50_ms", value: percentile(crowdTimes, 0.5), unit: "ms",
               baseline: percentile(quietTimes, 0.5)).print()
        Figure(scenario: "hostile", metric: "crowd_quiet_modify_p99_ms", value: percentile(quietTimes, 0.99),
               unit: "ms").print()
        Figure(scenario: "hostile", metric: "crowd_modify_p99_ms", value: percentile(crowdTimes, 0.99), unit: "ms",
               baseline: percentile(quietTimes, 0.99)).print()

        // The flood: the flooder writes 50-item batches on three connections at once, each item firing ten thousand
        // subscriptions, while another user writes items for the victim one at a time.
        let env = try app.store.environment(crowd, .development)
        let start = try env.notifications.lastNotificationID(for: Self.victim)
        let flooding = try query(crowd, Self.flooder)
        let evictedBefore = env.notifications.notificationCounter.evicted
        // On a thread of its own: its socket blocks, and Swift's two cooperative threads (on two cores) are the
        // server's and this loop's.
        let floods = (0..<Self.floodWriters).map { w in FloodThread(port: port, container: crowd, query: flooding,
                                                                    writer: w) }
        for flood in floods { flood.start() }
        var victimWrites = 0
        var floodTimes: [Double] = []
        // Another user's writes, one every 20 ms, while the flood writes and while its notifications are made
        // (the fan-out works on after the flood's writes end), up to a minute.
        let began = DispatchTime.now().uptimeNanoseconds
        while floods.contains(where: { !$0.isDone }) || (env.notifications.hasHandedOffChanges() && DispatchTime.now().uptimeNanoseconds - began < 60_000_000_000) {
            floodTimes += try writes(crowd, writeCrowd, "v\(victimWrites)", count: 1, category: { _ in "victim" })
            victimWrites += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        let lag = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        if let failure = floods.compactMap(\.failure).first { throw failure }
        let flooded = floods.reduce(0) { $0 + $1.written }
        for _ in 0..<600 where try env.notifications.entries(for: Self.victim, after: start,
                                                             limit: 10_000).count < victimWrites {
            try await Task.sleep(for: .milliseconds(100))
        }
        let received = try env.notifications.entries(for: Self.victim, after: start, limit: 10_000).count
        Figure(scenario: "hostile", metric: "flood_fan_out_s", value: lag, unit: "s").print()
        Figure(scenario: "hostile", metric: "flood_records_written", value: Double(flooded), unit: "records").print()
        Figure(scenario: "hostile", metric: "flood_notifications_evicted",
               value: Double(env.notifications.notificationCounter.evicted - evictedBefore),
                unit: "notifications").print()
        Figure(scenario: "hostile", metric: "victim_notifications_written", value: Double(victimWrites),
               unit: "notifications").print()
        Figure(scenario: "hostile", metric: "victim_notifications_lost", value: Double(victimWrites - received),
               unit: "notifications").print()
        Figure(scenario: "hostile", metric: "during_flood_modify_p50_ms", value: percentile(floodTimes, 0.5),
               unit: "ms", baseline: percentile(quietTimes, 0.5)).print()
        Figure(scenario: "hostile", metric: "during_flood_modify_p90_ms", value: percentile(floodTimes, 0.9),
               unit: "ms", baseline: percentile(quietTimes, 0.9)).print()
        Figure(scenario: "hostile", metric: "during_flood_modify_p99_ms", value: percentile(floodTimes, 0.99),
               unit: "ms", baseline: percentile(quietTimes, 0.99)).print()
    }
}

/// The flooder's writes, on a thread of their own.
final class FloodThread: @unchecked Sendable {
    let port: UInt16, container: ContainerID, query: String, writer: Int
    private let state = NSLock()
    private var done = false
    private(set) var written = 0
    private(set) var failure: (any Error)?

    init(port: UInt16, container: ContainerID, query: String, writer: Int) {
        (self.port, self.container, self.query, self.writer) = (port, container, query, writer)
    }

    var isDone: Bool { state.withLock { done } }

    func start() {
        Thread { [self] in
            do {
                let client = try LoadClient(port: port)
                for b in 0..<HostileScenario.floodBatches {
                    let ops = (0..<HostileScenario.floodBatch).map { HostileScenario.item("flood-\(writer)-\(b)-\($0)",
                            category: "flood", price: $0) }.joined(separator: ",")
                    let (status, _) = try client.send(LoadClient.request("POST",
                            "/database/1/\(container.rawValue)/development/public/records/modify?\(query)",
                                                                          body: Data(#"{"operations":[\#(ops)]}"#.utf8)))
                    guard status == 200 else { throw BenchFailure("the flood's write answered \(status)") }
                    state.withLock { written += HostileScenario.floodBatch }
                }
            } catch {
                state.withLock { failure = error }
            }
            state.withLock { done = true }
        }.start()
    }
}
