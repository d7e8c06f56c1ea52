import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore
import StratusTestSupport

/// What a hostile or sloppy client meets at the protocol's edges: CloudKit's envelope for every error under the
/// CloudKit paths, typed request members, prompt answers to malformed framing, and names a browser rewrites.
@Suite struct ProtocolHardeningTests {
    static func envelope(_ body: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    @Test func httpLayerErrorsUnderCloudKitPathsUseTheEnvelope() async throws {
        let f = try await APIFixture(apiBodyLimit: 1024)
        let c = f.container.rawValue
        let cases: [(String, Int)] = [
            ("DELETE /database/1/\(c)/development/public/records/query HTTP/1.1\r\nHost: x\r\n\r\n", 405),
            ("GET /database/1/\(c)/development HTTP/1.1\r\nHost: x\r\n\r\n", 404),
            ("GET /device/1/\(c)/development/nothing/here/at/all HTTP/1.1\r\nHost: x\r\n\r\n", 404),
            ("GET /database/1/%zz/development/public/zones/list HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("POST /database/1/\(c)/development/public/records/query HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", 413),
            ("POST /database/1/\(c)/development/public/records/query HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("GET /database/1/\(c)/development/public/zones/list HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n", 431),
            ("GET /database/1/\(c)/development/public/zones/list HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("GET /auth/1/\(c)/development/signin/extra HTTP/1.1\r\nHost: x\r\n\r\n", 404),
        ]
        for (request, status) in cases {
            let client = try RawClient(port: f.app.port)
            client.send(request)
            let r = try #require(await client.response(), "\(request.prefix(60))")
            #expect(r.status == status, "\(request.prefix(60))")
            let e = Self.envelope(r.body)
            #expect(e?["serverErrorCode"] is String && e?["reason"] is String && (e?["uuid"] as? String)?.count == 36,
                    "\(request.prefix(60)) → \(String(decoding: r.body, as: UTF8.self))")
            #expect(r.headers["content-type"]?.hasPrefix("application/json") == true)
        }
        // Outside the CloudKit paths, plain errors as before.
        let client = try RawClient(port: f.app.port)
        client.send("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await client.response()?.status == 404)
    }

    @Test func aBareLFRequestGets400AtOnce() async throws {
        let f = try await APIFixture { $0.http.requestTimeout = .seconds(60) }
        for head in ["GET /-/health HTTP/1.1\nHost: x\n\n", "GET /database/1/\(f.container.rawValue)/development/public/zones/list HTTP/1.1\r\nHost: x\n\r\n"] {
            let client = try RawClient(port: f.app.port, receiveTimeout: 120)
            let start = ContinuousClock.now
            client.send(head)
            let r = await client.response()
            // 400, not the 60 s request timeout's 408.
            #expect(r?.status == 400, "\(head.debugDescription)")
            // And not long after (a loaded 2-core machine has delayed in-process answers by 46 s while every suite starts).
            #expect(ContinuousClock.now - start < .seconds(90), "answered at once, not after the 60 s request timeout")
        }
    }

    @Test func membersOfTheWrongTypeAreBadRequestsNamingThem() async throws {
        let f = try await APIFixture()
        let cases: [(String, String, String)] = [
            ("records/query", #"{"query":{"recordType":"Note","filterBy":{"comparator":"EQUALS"}}}"#, "filterBy"),
            ("records/query", #"{"query":{"recordType":"Note","sortBy":"title"}}"#, "sortBy"),
            ("records/query", #"{"query":{"recordType":"Note"},"continuationMarker":5}"#, "continuationMarker"),
            ("records/query", #"{"query":{"recordType":"Note"},"resultsLimit":"200"}"#, "resultsLimit"),
            ("records/query", #"{"query":{"recordType":"Note"},"zoneID":{"zoneName":5}}"#, "zoneName"),
            ("records/query", #"{"query":{"recordType":"Note"},"zoneWide":"yes"}"#, "zoneWide"),
            ("records/query", #"{"query":{"recordType":"Note","sortBy":[{"fieldName":"t","ascending":"no"}]}}"#, "ascending"),
            ("records/modify", #"{"operations":[],"atomic":"yes"}"#, "atomic"),
            ("records/modify", #"{"operations":{}}"#, "operations"),
            ("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":7,"recordType":"Note"}}]}"#, "recordName"),
            ("records/lookup", #"{"records":[],"numbersAsStrings":"true"}"#, "numbersAsStrings"),
            ("zones/lookup", #"{"zones":"_defaultZone"}"#, "zones"),
            ("records/query", #"[1,2,3]"#, "object"),
        ]
        for (path, body, member) in cases {
            let r = try await f.call(path, body, user: f.aliceToken)
            #expect(r.status == 400 && r.json.code == "BAD_REQUEST" && r.json["reason"]?.string?.contains(member) == true, "\(body) → \(r.text)")
        }
        let meta = try await f.call("zones/changes", #"{"metaSyncToken":12}"#, db: "private", user: f.aliceToken)
        #expect(meta.status == 400 && meta.json["reason"]?.string?.contains("metaSyncToken") == true, "\(meta.text)")
        let changes = try await f.call("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"},"syncToken":{"a":1}}]}"#, db: "private", user: f.aliceToken)
        #expect(changes.text.contains("syncToken") && changes.text.contains("BAD_REQUEST"), "\(changes.text)")
    }

    @Test func namesABrowserRewritesAreRefusedEverywhere() async throws {
        let f = try await APIFixture()
        for name in [".", ".."] {
            let r = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note"}}]}"#, user: f.aliceToken)
            #expect(r.json.records.first?.code == "BAD_REQUEST", "\(r.text)")
            let z = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(name)"}}}]}"#, db: "private", user: f.aliceToken)
            #expect(z.text.contains("BAD_REQUEST"), "\(z.text)")
            let ref = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"r","recordType":"Note","fields":{"link":{"value":{"recordName":"\#(name)"},"type":"REFERENCE"}}}}]}"#, user: f.aliceToken)
            #expect(ref.json.records.first?.code == "BAD_REQUEST")
        }
        // The store refuses them for the console and the CLI alike.
        let env = try f.app.store.environment(f.container, .development)
        let results = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "..", recordType: "Note"))], in: .publicDatabase, actor: .system)
        if case .failed(let e) = results.first { #expect(e.code == .badRequest) } else { Issue.record("a record named .. was created") }
        #expect(throws: StratusError.self) { try env.zones.createZone(ZoneID(zoneName: "."), in: .privateDatabase(of: "_u")) }
    }
}
