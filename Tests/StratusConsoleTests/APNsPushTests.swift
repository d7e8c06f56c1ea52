import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// Push to Apple devices end to end: an admin stores the APNs key in the console, an app registers device tokens
/// with `tokens/register`, and a write's notifications are pushed over HTTP/2 + TLS to a stand-in that plays APNs
/// (`Tests/e2e/apns_standin.py`, from PyPI's h2): it checks the provider token's ES256 signature and APNs' headers,
/// and answers one device 410 (gone) and another 429 twice (busy) before taking it.
@Suite struct APNsPushTests {
    static let available = Prerequisites.available(Prerequisites.pythonModules(["h2", "cryptography"]) && Prerequisites.executable("openssl") != nil)

    /// The stand-in for APNs, on a port of its own, logging each push it gets as a JSON line.
    final class Standin: @unchecked Sendable {
        let process = ChildProcess()
        let port: Int
        let log: URL

        init(directory: URL, cert: URL, key: URL, publicKey: URL, keyID: String, teamID: String, topic: String, script: [String: [Any]]) async throws {
            log = directory.appendingPathComponent("pushes.jsonl")
            let standin = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("e2e/apns_standin.py")
            let scriptJSON = String(decoding: try JSONSerialization.data(withJSONObject: script), as: UTF8.self)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", standin.path, "--cert", cert.path, "--key", key.path, "--public-key", publicKey.path, "--key-id", keyID,
                                 "--team-id", teamID, "--topic", topic, "--script", scriptJSON, "--log", log.path]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.standardError
            try process.run()
            let reader = out.fileHandleForReading
            port = try await offPool {
                var buffer = ""
                while true {
                    let chunk = reader.availableData
                    guard !chunk.isEmpty else { throw Tools.ToolFailure(message: "the APNs stand-in ended: \(buffer)") }
                    buffer += String(decoding: chunk, as: UTF8.self)
                    if let line = buffer.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }), let port = Int(line.dropFirst(10)) { return port }
                }
            }
        }

        /// Every push received so far, in order.
        func pushes() -> [[String: Any]] {
            guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    @Test(.enabled(if: available, "python3 with h2 and cryptography, or openssl, is missing: pip install h2 cryptography; apt-get install openssl"))
    func pushesReachAppleDevicesAndAnswersOfGoneAndBusyDevicesAreHandled() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // The developer's key as Apple issues it: a P-256 key in PKCS#8 PEM (AuthKey_KEYID.p8). openssl runs off
        // Swift's cooperative threads, which the run's in-process servers answer on.
        let p8 = dir.appendingPathComponent("AuthKey_ABC123DEFG.p8"), publicKey = dir.appendingPathComponent("apns-public.pem")
        let (cert, tlsKey, made) = try await offPool { () throws -> (URL, URL, Bool) in
            let (cert, key) = try Tools.selfSignedCertificate(in: dir)
            let made = try Tools.run("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8.path]).status == 0
                && Tools.run("openssl", ["pkey", "-in", p8.path, "-pubout", "-out", publicKey.path]).status == 0
            return (cert, key, made)
        }
        #expect(made)
        let (keyID, teamID, topic) = ("ABC123DEFG", "TEAM123456", "com.example.notes")
        let good = String(repeating: "a1", count: 32), gone = String(repeating: "b2", count: 32), busy = String(repeating: "c3", count: 32)
        let stale = String(repeating: "d4", count: 32)
        let standin = try await Standin(directory: dir, cert: cert, key: tlsKey, publicKey: publicKey, keyID: keyID, teamID: teamID, topic: topic,
                                        script: [gone: [410], busy: [429, 429, 200], stale: ["403:ExpiredProviderToken", 200]])
        defer { standin.stop() }

        let f = try await ConsoleFixture { config in
            config.apnsEndpoint = "https://127.0.0.1:\(standin.port)"
            config.apnsCAFile = cert.path
        }
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Push")
        try f.app.store.createContainer(container)
        let apiToken = try f.app.store.credentials.createAPIToken(container: container, environment: .development, name: "app").secret
        let alice = try await offPool { try f.app.store.accounts.createUser(container: container, email: "alice@example.com", password: "a long password") }
        let webToken = try f.app.store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: alice.userRecordName)
        let base = "/console/\(container.rawValue)/development"

        // The admin stores the key in the console; a wrong one gets a readable error; the page never shows the key.
        let pem = try String(contentsOf: p8, encoding: .utf8)
        let refused = try await s.post("\(base)/notifications/apns", [("keyID", keyID), ("teamID", teamID), ("topic", topic), ("privateKey", "not a key")])
        #expect(refused.status == 400 && refused.html.contains("not an APNs signing key"))
        #expect(try await s.post("\(base)/notifications/apns", [("keyID", keyID), ("teamID", teamID), ("topic", topic), ("privateKey", pem)], csrf: false).status == 403)
        let saved = try await s.post("\(base)/notifications/apns", [("keyID", keyID), ("teamID", teamID), ("topic", topic), ("privateKey", pem)])
        #expect(saved.status == 200 && saved.html.contains("Pushing with key <code>\(keyID)</code>"))
        let keyBody = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        #expect(!saved.html.contains(keyBody), "the page shows the private key")

        // Alice's app: a note, two subscriptions (an alert and a silent one), and three devices.
        @Sendable func call(_ path: String, _ body: String) async throws -> (Int, [String: Any]) {
            let q = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(webToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            var req = URLRequest(url: URL(string: "\(f.app.url)\(path)?\(q)")!)
            req.httpMethod = "POST"
            req.httpBody = Data(body.utf8)
            let (d, r) = try await f.session.data(for: req)
            return ((r as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: d)) as? [String: Any] ?? [:])
        }
        let db = "database/1/\(container.rawValue)/development/private"
        let note = { (name: String) in #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"hi"}}}}]}"# }
        #expect(try await call("\(db)/records/modify", note("n0")).0 == 200)
        let subs = #"""
            {"operations":[
              {"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"query","query":{"recordType":"Note"},
               "firesOn":["create","update","delete"],"notificationInfo":{"alertBody":"A note changed"}}},
              {"operationType":"create","subscription":{"subscriptionID":"everything","subscriptionType":"database","notificationInfo":{"shouldSendContentAvailable":true}}}]}
            """#
        #expect(try await call("\(db)/subscriptions/modify", subs).0 == 200)
        let device = "device/1/\(container.rawValue)/development/tokens/register"
        for token in [good, gone, busy, stale] {
            #expect(try await call(device, #"{"apnsEnvironment":"DEVELOPMENT","apnsToken":"\#(token)"}"#).0 == 200)
        }
        #expect(try await call(device, #"{"apnsEnvironment":"DEVELOPMENT","apnsToken":"not-hex"}"#).0 == 400)
        #expect(try await call(device, #"{"apnsEnvironment":"MARS","apnsToken":"\#(good)"}"#).0 == 400)
        #expect(try f.app.store.environment(container, .development).apns.apnsDevices(user: alice.userRecordName).count == 4)

        // One write, two notifications: each device gets both, the busy one after two 429s, the gone one once only.
        #expect(try await call("\(db)/records/modify", note("n1")).0 == 200)
        func pushes(to token: String) -> [[String: Any]] { standin.pushes().filter { $0["token"] as? String == token } }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, pushes(to: good).count < 2 || pushes(to: busy).filter({ $0["status"] as? Int == 200 }).count < 2 || pushes(to: gone).isEmpty
                || pushes(to: stale).count < 3 {
            try await Task.sleep(for: .milliseconds(100))
        }
        let all = standin.pushes()
        #expect(!all.isEmpty && all.allSatisfy { $0["jwt_ok"] as? Bool == true }, "provider tokens APNs would refuse: \(all.map { $0["problem"] ?? "" })")
        let toGood = pushes(to: good)
        #expect(toGood.count == 2, "\(toGood)")
        let headers = toGood.compactMap { $0["headers"] as? [String: String] }
        let alert = headers.first { $0["apns-push-type"] == "alert" }, silent = headers.first { $0["apns-push-type"] == "background" }
        #expect(alert?["apns-priority"] == "10" && alert?["apns-topic"] == topic && alert?[":path"] == "/3/device/\(good)" && alert?["apns-collapse-id"] == nil)
        #expect(silent?["apns-priority"] == "5" && silent?["apns-collapse-id"] == "everything")
        let bodies = toGood.compactMap { ($0["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } }
        let alertBody = bodies.first { ($0["aps"] as? [String: Any])?["alert"] != nil }
        #expect(((alertBody?["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "A note changed")
        #expect(((alertBody?["ck"] as? [String: Any])?["qry"] as? [String: Any])?["rid"] as? String == "n1")
        #expect(bodies.contains { ($0["aps"] as? [String: Any])?["content-available"] as? Int == 1 })
        #expect(pushes(to: busy).map { $0["status"] as? Int ?? 0 } == [429, 429, 200, 200])
        #expect(pushes(to: gone).count == 1)
        // An expired provider token: a new one is made and the same push sent again at once.
        let toStale = pushes(to: stale)
        #expect(toStale.map { $0["status"] as? Int ?? 0 } == [403, 200, 200] && toStale[0]["body"] as? String == toStale[1]["body"] as? String)
        #expect(toStale.count == 3 && toStale[0]["jwt"] as? String != toStale[1]["jwt"] as? String, "the provider token was renewed")
        #expect(try f.app.store.environment(container, .development).apns.apnsDevices().map(\.token).sorted() == [good, busy, stale].sorted(), "the gone device is forgotten")

        // The console shows each push's state; another write is pushed to the devices that are left, and only those.
        // The stand-in logs a push before its answer reaches Stratus, so the states are read until they settle.
        var shown: [String: Any] = [:], rows: [[String: Any]] = []
        let settled = Date().addingTimeInterval(30)
        repeat {
            let page = try await s.get("\(base)/notifications", accept: "application/json")
            shown = try #require(try JSONSerialization.jsonObject(with: Data(page.html.utf8)) as? [String: Any])
            rows = shown["apnsDeliveries"] as? [[String: Any]] ?? []
            if rows.filter({ $0["state"] as? String == "sent" }).count >= 6 && rows.contains(where: { $0["state"] as? String == "unregistered" }) { break }
            try await Task.sleep(for: .milliseconds(100))
        } while Date() < settled
        #expect(rows.filter { $0["state"] as? String == "unregistered" }.count == 1)
        #expect(rows.filter { $0["state"] as? String == "sent" }.count == 6)
        #expect(rows.contains { $0["state"] as? String == "sent" && $0["attempts"] as? Int == 3 }, "the busy device's first push took three attempts")
        #expect((shown["apns"] as? [String: Any])?["keyID"] as? String == keyID)
        let html = try await s.get("\(base)/notifications").html
        #expect(html.contains("unregistered") && html.contains("Unregistered") && html.contains("a1a1a1…a1a1"))
        #expect(try await call("\(db)/records/modify", note("n2")).0 == 200)
        let later = Date().addingTimeInterval(30)
        while Date() < later, pushes(to: good).count < 4 || pushes(to: busy).count < 6 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(pushes(to: good).count == 4 && pushes(to: busy).count == 6 && pushes(to: gone).count == 1)

        // Without the key nothing more is pushed.
        let removed = try await s.post("\(base)/notifications/apns/remove")
        #expect(removed.status == 200 && removed.html.contains("No APNs key"))
        #expect(try await call("\(db)/records/modify", note("n3")).0 == 200)
        try await Task.sleep(for: .seconds(2))
        #expect(pushes(to: good).count == 4)
    }
}
