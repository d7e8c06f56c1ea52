import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// The APNs deliverer on a large backlog with an APNs it cannot reach: 32 devices of one user, 1,000 subscriptions,
/// a million notifications waiting. Each pass reads a page per device, a few devices at a time; its memory stays
/// bounded (it once grew past a gigabyte in seconds, reading whole batches for each device at once).
@Suite struct APNsBacklogTests {
    static let available = Prerequisites.available(Prerequisites.executable("openssl") != nil)

    /// The process's resident memory now and at its peak, in MB.
    static func memory(_ pid: Int32) -> (now: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { Int($0.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") }.map { $0 / 1024 } ?? 0
        }
        return (field("VmRSS:"), field("VmHWM:"))
    }

    @Test(.enabled(if: available, "openssl is not installed: apt-get install openssl"))
    func aLargeBacklogAndAnUnreachableAPNsKeepMemoryBounded() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = try ContainerID("iCloud.com.example.Backlog")
        let p8 = data.appendingPathComponent("AuthKey.p8")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let made = try await Executables.offPool { try Tools.run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8.path]).status }
        #expect(made == 0)
        try await Executables.offPool {
            let store = try ServerStore(dataDirectory: data, durability: .relaxed)
            try store.createContainer(container)
            let env = try store.environment(container, .development)
            let user = try store.accounts.createUser(container: container, email: "many@example.com", password: "a long password").userRecordName
            for i in 0..<1_000 {
                let id = "s\(i)"
                try env.subscriptions.saveSubscription(id, document: #"{"subscriptionType":"query","query":{"recordType":"Note"},"firesOn":["create"],"notificationInfo":{"alertBody":"a note","desiredKeys":["title"]}}"#,
                                                       in: .private, owner: user)
            }
            for d in 0..<32 { try env.apns.registerAPNsDevice(token: String(format: "%064x", d + 1), user: user, apnsEnvironment: .development) }
            for batch in 0..<5 {
                let records = (0..<200).map { StoredRecord(recordName: "n\(batch)-\($0)", recordType: "Note", fields: ["title": .string("note \($0)")]) }
                _ = try env.records.modify(records.map { RecordOperation(.create, $0) }, in: .privateDatabase(of: user), actor: RequestActor(userRecordName: user))
            }
            _ = try store.credentials.setAPNsCredentials(container: container, environment: .development, privateKeyPEM: try String(contentsOf: p8, encoding: .utf8),
                                             keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.example.backlog")
            store.close()
        }
        // No APNs listens on port 1 of this machine.
        let server = try await ServeProcess(arguments: ["--data", data.path, "--durability", "relaxed", "--apns-endpoint", "https://127.0.0.1:1"])
        defer { server.stop() }
        let pid = server.process.processIdentifier
        try await Task.sleep(for: .seconds(4))
        let early = Self.memory(pid)
        try await Task.sleep(for: .seconds(8))
        let late = Self.memory(pid)
        #expect(late.peak < 250, "peak resident memory \(late.peak) MB (early \(early.now) MB, late \(late.now) MB)")
        #expect(late.now < early.now + 100, "resident memory grew from \(early.now) MB to \(late.now) MB")
    }
}
