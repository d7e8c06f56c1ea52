import Foundation
import StratusKit
import Testing

/// The classic CloudKit guide workflows, written as an app writes them, against a real server.
@Suite(.serialized) struct RecordWorkflowTests {
    @Test func saveFetchAndQueryWithPredicatesAndCursors() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        var saved: [CKRecord] = []
        for i in 0..<25 {
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "note-\(i)"))
            note["title"] = "Note \(i)"
            note["stars"] = i % 5
            note["done"] = i.isMultiple(of: 2)
            note["score"] = Double(i) / 4
            note["tags"] = i < 10 ? ["early", "all"] : ["all"]
            note["due"] = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 60)
            note["blob"] = Data([0, 1, 2, UInt8(i)])
            saved.append(try await db.save(note))
        }
        #expect(saved[3].recordChangeTag != nil)
        #expect(saved[3].creationDate != nil)

        let fetched = try await db.record(for: CKRecord.ID(recordName: "note-7"))
        #expect(fetched["title"] as? String == "Note 7")
        #expect(fetched["stars"] as? Int == 2)
        #expect(fetched["stars"] as? Int64 == 2)
        #expect(fetched["done"] as? Bool == false)
        #expect(fetched["score"] as? Double == 1.75)
        #expect(fetched["tags"] as? [String] == ["early", "all"])
        #expect(fetched["due"] as? Date == Date(timeIntervalSince1970: 1_700_000_420))
        #expect(fetched["blob"] as? Data == Data([0, 1, 2, 7]))
        let typed: String? = fetched["title"]
        #expect(typed == "Note 7")

        // A predicate query, sorted, read in pages through the cursor.
        let query = CKQuery(recordType: "Note", predicateFormat: "stars >= %@ AND title BEGINSWITH %@", 3, "Note")
        query.sortDescriptors = [NSSortDescriptor(key: "score", ascending: false)]
        var (results, cursor) = try await db.records(matching: query, resultsLimit: 4)
        var titles = try results.map { try $0.1.get()["title"] as? String ?? "" }
        while let c = cursor {
            (results, cursor) = try await db.records(continuingMatchFrom: c, resultsLimit: 4)
            titles += try results.map { try $0.1.get()["title"] as? String ?? "" }
        }
        let expected = (0..<25).filter { $0 % 5 >= 3 }.sorted(by: >).map { "Note \($0)" }
        #expect(titles == expected)

        // IN, CONTAINS on a list, != and a literal; the classic operation with its blocks.
        let op = CKQueryOperation(query: CKQuery(recordType: "Note", predicateFormat: "tags CONTAINS 'early' AND stars IN %@ AND done == YES", [0, 4]))
        let matched = Collected<String>()
        let ended = Collected<Result<CKQueryOperation.Cursor?, any Error>>()
        op.recordMatchedBlock = { _, result in if case .success(let r) = result { matched.append(r.recordID.recordName) } }
        op.queryResultBlock = { ended.append($0) }
        await KitFixture.run(op, on: db)
        #expect(Set(matched.all) == ["note-0", "note-4"])
        #expect(ended.all.count == 1)

        // TRUEPREDICATE through NSPredicate(value:).
        let all = try await db.records(matching: CKQuery(recordType: "Note", predicate: NSPredicate(value: true)), resultsLimit: 100)
        #expect(all.matchResults.count == 25)
    }

    @Test func selfContainsSearchesEveryStringField() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let texts = [("a", "Groceries", "milk and eggs"), ("b", "Eggs Benedict", "a recipe"), ("c", "Milk run", "bread only")]
        for (name, title, body) in texts {
            let r = CKRecord(recordType: "Memo", recordID: CKRecord.ID(recordName: name))
            r["title"] = title
            r["body"] = body
            r["count"] = 1
            _ = try await db.save(r)
        }
        let both = try await db.records(matching: CKQuery(recordType: "Memo", predicateFormat: "self CONTAINS %@", "milk eggs"))
        #expect(Set(both.matchResults.map(\.0.recordName)) == ["a"])
        let eggs = try await db.records(matching: CKQuery(recordType: "Memo", predicateFormat: "self contains 'EGGS'"))
        #expect(Set(eggs.matchResults.map(\.0.recordName)) == ["a", "b"])
        let milk = try await db.records(matching: CKQuery(recordType: "Memo", predicateFormat: "self CONTAINS 'milk' AND count == 1"))
        #expect(Set(milk.matchResults.map(\.0.recordName)) == ["a", "c"])
    }

    @Test func unsupportedPredicatesAreRefusedWithInvalidArguments() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        for format in ["title == 'a' OR title == 'b'", "title MATCHES 'x'", "title ==", "a == b == c", "title == %@"] {
            do {
                _ = try await db.records(matching: CKQuery(recordType: "Note", predicateFormat: format))
                Issue.record("'\(format)' was accepted")
            } catch let e as CKError {
                #expect(e.code == .invalidArguments, "\(format): \(e)")
            }
        }
    }

    @Test func aStaleSaveFailsWithServerRecordChangedAndIsMergedFromUserInfo() async throws {
        let f = try await KitFixture()
        let phone = f.aliceContainer().privateCloudDatabase
        let laptop = f.aliceContainer().privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Notes")
        _ = try await phone.save(zone)

        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "shared-note", zoneID: zone.zoneID))
        note["title"] = "Groceries"
        note["body"] = "milk"
        note["count"] = 1
        let saved = try await phone.save(note)
        // As CloudKit: the saved record is returned; the one passed in is left as it was.
        #expect(saved.recordChangeTag != nil && note.recordChangeTag == nil)
        #expect(saved !== note)

        // Both devices fetch the same version; the laptop saves first.
        let onLaptop = try await laptop.record(for: note.recordID)
        onLaptop["title"] = "Groceries (laptop)"
        _ = try await laptop.save(onLaptop)

        saved["body"] = "milk, eggs"
        do {
            _ = try await phone.save(saved)
            Issue.record("a stale save succeeded")
        } catch let error as CKError where error.code == .serverRecordChanged {
            let server = try #require(error.serverRecord)
            let client = try #require(error.clientRecord)
            let ancestor = try #require(error.ancestorRecord)
            #expect(server["title"] as? String == "Groceries (laptop)")
            #expect(client["body"] as? String == "milk, eggs")
            #expect(ancestor["body"] as? String == "milk")
            // Three-way merge: take the server's record, apply the keys the client changed since the ancestor.
            for key in client.changedKeys() { server[key] = client[key] }
            let merged = try await phone.save(server)
            #expect(merged["title"] as? String == "Groceries (laptop)")
            #expect(merged["body"] as? String == "milk, eggs")
        }
        let final = try await laptop.record(for: note.recordID)
        #expect(final["title"] as? String == "Groceries (laptop)")
        #expect(final["body"] as? String == "milk, eggs")

        // `catch CKError.serverRecordChanged` reads as in CloudKit code.
        onLaptop["title"] = "stale again"
        do {
            _ = try await laptop.save(onLaptop)
            Issue.record("a stale save succeeded")
        } catch CKError.serverRecordChanged {
        }
    }

    @Test func savePoliciesChangedKeysAndAllKeys() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "item"))
        r["a"] = "1"
        r["b"] = "2"
        _ = try await db.save(r)

        // .changedKeys: a record built from scratch with only `a` changes `a` and leaves `b`.
        let partial = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "item"))
        partial["a"] = "one"
        let op = CKModifyRecordsOperation(recordsToSave: [partial], recordIDsToDelete: nil)
        op.savePolicy = .changedKeys
        let result = Collected<Result<Void, any Error>>()
        op.modifyRecordsResultBlock = { result.append($0) }
        await KitFixture.run(op, on: db)
        if case .failure(let e) = result.all.first { Issue.record("changedKeys save failed: \(e)") }
        var now = try await db.record(for: r.recordID)
        #expect(now["a"] as? String == "one")
        #expect(now["b"] as? String == "2")

        // .allKeys: every key the local record holds is saved, without the change tag; `b`, which it does not
        // carry, is left as the server has it (CloudKit's "allKeys" sends all keys, it does not replace the record).
        let whole = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "item"))
        whole["a"] = "uno"
        whole["c"] = "tres"
        let (saves, _) = try await db.modifyRecords(saving: [whole], deleting: [], savePolicy: .allKeys)
        _ = try saves[whole.recordID]?.get()
        now = try await db.record(for: r.recordID)
        #expect(now["a"] as? String == "uno")
        #expect(now["b"] as? String == "2")
        #expect(now["c"] as? String == "tres")
        // A key the local record removed is removed.
        let fetched = try await db.record(for: r.recordID)
        fetched["b"] = nil
        _ = try await db.modifyRecords(saving: [fetched], deleting: [], savePolicy: .allKeys)
        #expect(try await db.record(for: r.recordID)["b"] == nil)

        // The everyday way: a fetched record, a key set to nil, saved with the default policy.
        let again = try await db.record(for: r.recordID)
        again["c"] = nil
        let saved = try await db.save(again)
        #expect(saved["c"] == nil && saved["a"] as? String == "uno")
        #expect(try await db.record(for: r.recordID)["c"] == nil)
    }

    @Test func partialRecordsFromDesiredKeysSaveBackOnlyWhatChanged() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let r = CKRecord(recordType: "Profile", recordID: CKRecord.ID(recordName: "me"))
        r["name"] = "Alice"
        r["bio"] = String(repeating: "long text ", count: 50)
        _ = try await db.save(r)

        let results = try await db.records(for: [r.recordID], desiredKeys: ["name"])
        let light = try #require(try results[r.recordID]?.get())
        #expect(light["bio"] == nil)
        #expect(light["name"] as? String == "Alice")
        light["name"] = "Alice A."
        _ = try await db.save(light)
        let full = try await db.record(for: r.recordID)
        #expect(full["name"] as? String == "Alice A.")
        #expect((full["bio"] as? String)?.hasPrefix("long text") == true)
    }

    @Test func anAtomicBatchFailsWholeWithPartialFailureAndBatchRequestFailed() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Atomic"))
        let existing = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "exists", zoneID: zone.zoneID))
        existing["v"] = 1
        _ = try await db.save(existing)

        // A second device's copy that was never fetched: `create` of an existing name fails the batch.
        let clash = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "exists", zoneID: zone.zoneID))
        clash["v"] = 2
        let fresh = (0..<3).map { i -> CKRecord in
            let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "new-\(i)", zoneID: zone.zoneID))
            r["v"] = i
            return r
        }
        let op = CKModifyRecordsOperation(recordsToSave: fresh + [clash], recordIDsToDelete: nil)
        op.isAtomic = true
        let perRecord = Collected<(CKRecord.ID, Result<CKRecord, any Error>)>()
        let final = Collected<Result<Void, any Error>>()
        op.perRecordSaveBlock = { perRecord.append(($0, $1)) }
        op.modifyRecordsResultBlock = { final.append($0) }
        await KitFixture.run(op, on: db)

        guard case .failure(let error as CKError) = final.all.first else { Issue.record("the batch did not fail"); return }
        #expect(error.code == .partialFailure)
        let partial = try #require(error.partialErrorsByItemID)
        #expect((partial[clash.recordID] as? CKError)?.code == .serverRecordChanged)
        for r in fresh { #expect((partial[r.recordID] as? CKError)?.code == .batchRequestFailed) }
        #expect(perRecord.all.count == 4)
        // Nothing of the batch landed.
        let after = try await db.records(for: fresh.map(\.recordID))
        for r in fresh {
            guard case .failure(let e as CKError)? = after[r.recordID] else { Issue.record("\(r.recordID.recordName) exists"); continue }
            #expect(e.code == .unknownItem)
        }
    }

    @Test func deleteSelfReferencesTakeChildrenWithTheirParent() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let list = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "list"))
        list["name"] = "Chores"
        let items = (0..<3).map { i -> CKRecord in
            let r = CKRecord(recordType: "Task", recordID: CKRecord.ID(recordName: "task-\(i)"))
            r["list"] = CKRecord.Reference(record: list, action: .deleteSelf)
            return r
        }
        let keep = CKRecord(recordType: "Task", recordID: CKRecord.ID(recordName: "loose"))
        keep["list"] = CKRecord.Reference(recordID: list.recordID, action: .none)
        _ = try await db.modifyRecords(saving: [list] + items + [keep], deleting: [])
        let task = try await db.record(for: items[0].recordID)
        let ref = try #require(task["list"] as? CKRecord.Reference)
        #expect(ref.recordID == list.recordID)
        #expect(ref.action == .deleteSelf)

        try await db.deleteRecord(withID: list.recordID)
        let after = try await db.records(for: items.map(\.recordID) + [keep.recordID])
        for r in items {
            guard case .failure(let e as CKError)? = after[r.recordID] else { Issue.record("\(r.recordID.recordName) survived"); continue }
            #expect(e.code == .unknownItem)
        }
        #expect((try? after[keep.recordID]?.get()) != nil)
    }

    @Test func assetsGoUpAndComeDownByteIdentical() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kit-asset-\(UUID().uuidString).bin")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "photo"))
        photo["image"] = CKAsset(fileURL: file)
        photo["caption"] = "sunset"
        _ = try await db.save(photo)

        // Another device, with an empty cache, fetches the record and finds the bytes in a local file.
        let other = f.aliceContainer().privateCloudDatabase
        let fetched = try await other.record(for: photo.recordID)
        let asset = try #require(fetched["image"] as? CKAsset)
        let url = try #require(asset.fileURL)
        #expect(url != file)
        #expect(try Data(contentsOf: url) == bytes)
    }
}

/// The completion-handler forms, as pre-async CloudKit code calls them.
@Suite struct CompletionHandlerTests {
    @Test func theClassicCompletionHandlerCallsWork() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let r = CKRecord(recordType: "Place", recordID: CKRecord.ID(recordName: "cafe"))
        r["name"] = "Café"
        r["where"] = CLLocation(latitude: 38.7, longitude: -9.14)
        let saved: CKRecord = try await withCheckedThrowingContinuation { c in
            db.save(r) { record, error in
                if let record { c.resume(returning: record) } else { c.resume(throwing: error!) }
            }
        }
        #expect(saved.recordChangeTag != nil)
        let fetched: CKRecord = try await withCheckedThrowingContinuation { c in
            db.fetch(withRecordID: r.recordID) { record, error in
                if let record { c.resume(returning: record) } else { c.resume(throwing: error!) }
            }
        }
        let place = try #require(fetched["where"] as? CLLocation)
        #expect(abs(place.coordinate.latitude - 38.7) < 1e-9)
        let page = try await withCheckedThrowingContinuation { c in
            db.fetch(withQuery: CKQuery(recordType: "Place", predicateFormat: "name == %@", "Café")) { c.resume(with: $0) }
        }
        #expect(page.matchResults.count == 1)
        let missing: (any Error)? = await withCheckedContinuation { c in
            db.fetch(withRecordID: CKRecord.ID(recordName: "nowhere")) { _, error in c.resume(returning: error) }
        }
        #expect((missing as? CKError)?.code == .unknownItem)
        let deleted: CKRecord.ID? = await withCheckedContinuation { c in db.delete(withRecordID: r.recordID) { id, _ in c.resume(returning: id) } }
        #expect(deleted == r.recordID)
    }
}
