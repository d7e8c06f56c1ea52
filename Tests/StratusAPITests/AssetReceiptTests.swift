import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

/// A record may take a new asset only with the receipt its caller's own upload returned.
@Suite struct AssetReceiptTests {
    /// assets/upload, then the bytes to the URL it gives: the `singleFile` dictionary.
    static func upload(_ f: APIFixture, _ bytes: Data, user: String) async throws -> JSON {
        let tokens = try await f.call("assets/upload", #"{"tokens":[{"recordType":"Photo","fieldName":"image"}]}"#, user: user)
        let url = try #require(tokens.json["tokens"]?.array?.first?["url"]?.string)
        var req = URLRequest(url: URL(string: url)!)
        req.httpMethod = "POST"
        req.httpBody = bytes
        let (d, _) = try await f.session.data(for: req)
        return try #require(try JSON.parse(d)["singleFile"])
    }

    static func create(_ name: String, asset: String) -> String {
        #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Photo","fields":{"image":{"value":\#(asset),"type":"ASSETID"}}}}]}"#
    }

    @Test(arguments: Backend.allCases) func aChecksumAloneDoesNotAttachSomeoneElsesAsset(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let secret = Data("alice's private scan".utf8)
        let single = try await Self.upload(f, secret, user: f.aliceToken)
        let checksum = try #require(single["fileChecksum"]?.string)
        let receipt = try #require(single["receipt"]?.string)
        #expect(receipt != checksum && receipt.count > 40, "a receipt is not the checksum")
        // Alice attaches it with her receipt.
        let mine = try await f.call("records/modify", Self.create("alice-photo", asset: #"{"fileChecksum":"\#(checksum)","size":\#(secret.count),"receipt":"\#(receipt)"}"#),
                                    db: "private", user: f.aliceToken)
        #expect(mine.json.records.first?.code == nil, "\(mine.text)")
        #expect(!mine.text.contains(receipt), "receipts are never handed back")

        // Bob, who learnt the checksum, quotes it alone, with the checksum as receipt, and with Alice's own receipt.
        for value in [#"{"fileChecksum":"\#(checksum)","size":\#(secret.count)}"#,
                      #"{"fileChecksum":"\#(checksum)","size":\#(secret.count),"receipt":"\#(checksum)"}"#,
                      #"{"fileChecksum":"\#(checksum)","size":\#(secret.count),"receipt":"\#(receipt)"}"#] {
            let stolen = try await f.call("records/modify", Self.create("bob-photo", asset: value), db: "private", user: f.bobToken)
            #expect(stolen.json.records.first?.code == "BAD_REQUEST" && stolen.text.contains("receipt"), "\(stolen.text)")
            #expect(!stolen.text.contains("downloadURL"))
        }
        let lookup = try await f.call("records/lookup", #"{"records":[{"recordName":"bob-photo"}]}"#, db: "private", user: f.bobToken)
        #expect(lookup.json.records.first?.code == "NOT_FOUND")
        // An unknown checksum gets the same answer as a known one: the error is no oracle.
        let unknown = try await f.call("records/modify", Self.create("bob-photo", asset: #"{"fileChecksum":"AAAA","size":1}"#), db: "private", user: f.bobToken)
        #expect(unknown.json.records.first?["reason"]?.string?.contains("receipt") == true)

        // Bob's own upload of other bytes works for him.
        let his = try await Self.upload(f, Data("bob's".utf8), user: f.bobToken)
        let hisValue = #"{"fileChecksum":"\#(his["fileChecksum"]!.string!)","size":5,"receipt":"\#(his["receipt"]!.string!)"}"#
        #expect(try await f.call("records/modify", Self.create("bob-photo", asset: hisValue), db: "private", user: f.bobToken).json.records.first?.code == nil)

        // Existing references keep working: Alice saves her record back as she fetched it (no receipt), changing another field.
        let fetched = try await f.call("records/lookup", #"{"records":[{"recordName":"alice-photo"}]}"#, db: "private", user: f.aliceToken)
        let tag = try #require(fetched.json.records.first?["recordChangeTag"]?.string)
        let back = #"{"operations":[{"operationType":"update","record":{"recordName":"alice-photo","recordType":"Photo","recordChangeTag":"\#(tag)","fields":{"image":{"value":{"fileChecksum":"\#(checksum)","size":\#(secret.count)}},"caption":{"value":"hi"}}}}]}"#
        let saved = try await f.call("records/modify", back, db: "private", user: f.aliceToken)
        #expect(saved.json.records.first?.code == nil, "\(saved.text)")
    }
}
