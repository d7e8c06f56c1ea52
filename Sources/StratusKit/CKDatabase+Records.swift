import Foundation
import StratusJSON
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CKDatabase {
    /// Mirrors `CKModifyRecordsOperation.RecordSavePolicy` (`CKRecordSavePolicy`).
    public typealias RecordSavePolicy = CKModifyRecordsOperation.RecordSavePolicy

    // MARK: Fetch

    /// Mirrors `CKDatabase.record(for:)`.
    public func record(for recordID: CKRecord.ID) async throws -> CKRecord {
        guard let result = try await records(for: [recordID])[recordID] else { throw CKError.make(.unknownItem,
                "record \(recordID.recordName) not found") }
        return try result.get()
    }

    /// Mirrors `CKDatabase.records(for:desiredKeys:)`.
    public func records(for ids: [CKRecord.ID],
                        desiredKeys: [CKRecord.FieldKey]? = nil) async throws -> [CKRecord.ID: Result<CKRecord,
            any Error>] {
        var results: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for (zone, group) in grouped(ids, by: \.zoneID) {
            var body: WireObject = ["records": .array(group.map { ["recordName": JSON($0.recordName)] }),
                                    "zoneID": JSON(RecordCoder.zoneJSON(zone))]
            if let desiredKeys { body["desiredKeys"] = JSON(desiredKeys) }
            let j = try await call("records/lookup", body)
            let items = j["records"]?.objects ?? []
            let decoded = try await decode(items, zoneID: zone)
            for (i, d) in decoded.enumerated() {
                if case .record(let r) = d {
                    r.isPartial = desiredKeys != nil
                    results[r.recordID] = .success(r)
                } else if case .failure(let item) = d {
                    let id = recordID(item, zoneID: zone) ?? (i < group.count ? group[i] : nil)
                    if let id { results[id] = .failure(CKError.from(server: item, scope: databaseScope, zoneID: zone)) }
                }
            }
        }
        return results
    }

    // MARK: Save and delete

    /// Mirrors `CKDatabase.save(_:)` for a record: saves it if the server's copy has not changed since it was
    /// fetched (a new record is created), else throws `.serverRecordChanged` with the server's copy. The saved
    /// record is a new instance; the one passed in is left as it was, as CloudKit leaves it.
    public func save(_ record: CKRecord) async throws -> CKRecord {
        try await saveOne(record, record.recordID, "the save") { try await modifyRecords(saving: $0, deleting: $1) }
    }

    /// Mirrors `CKDatabase.deleteRecord(withID:)`.
    @discardableResult
    public func deleteRecord(withID recordID: CKRecord.ID) async throws -> CKRecord.ID {
        try await deleteOne(recordID, "the delete") { try await modifyRecords(saving: $0, deleting: $1) }
    }

    /// Mirrors `CKDatabase.modifyRecords(saving:deleting:savePolicy:atomically:)`. Records of several zones are sent
    /// one request per zone (CloudKit Web Services' `records/modify` takes one zone); `atomically` makes each zone's
    /// part all-or-nothing, as CloudKit's atomic zones do.
    public func modifyRecords(saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
                              savePolicy: RecordSavePolicy = .ifServerRecordUnchanged, atomically: Bool = true) async throws
        -> (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void,
                any Error>]) {
        var saveResults: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        var deleteResults: [CKRecord.ID: Result<Void, any Error>] = [:]
        let zones = orderedUnique(recordsToSave.map(\.recordID.zoneID) + recordIDsToDelete.map(\.zoneID))
        for zone in zones {
            let saves = recordsToSave.filter { $0.recordID.zoneID == zone }
            let deletes = recordIDsToDelete.filter { $0.zoneID == zone }
            var operations: [WireObject] = []
            for r in saves { operations.append(try await saveOperation(r, policy: savePolicy)) }
            for id in deletes { operations.append(["operationType": "forceDelete",
                                                   "record": ["recordName": JSON(id.recordName)]]) }
            let body: WireObject = ["operations": JSON(operations), "zoneID": JSON(RecordCoder.zoneJSON(zone)),
                                    "atomic": JSON(atomically && zone.zoneName != CKRecordZone.ID.defaultZoneName)]
            let j = try await call("records/modify", body)
            let items = j["records"]?.objects ?? []
            guard items.count == operations.count else { throw CKError.make(.serverResponseLost,
                    "records/modify answered \(items.count) of \(operations.count) operations") }
            let decoded = try await decode(Array(items.prefix(saves.count)), zoneID: zone)
            for (i, r) in saves.enumerated() {
                if case .record(let saved) = decoded[i] {
                    // The record passed in is not changed (CloudKit's is not): the app keeps the one returned.
                    saveResults[r.recordID] = .success(saved)
                } else if case .failure(let item) = decoded[i] {
                    saveResults[r.recordID] = .failure(try await saveError(item, record: r, zone: zone))
                }
            }
            for (i, id) in deletes.enumerated() {
                let item = items[saves.count + i]
                if item["serverErrorCode"] != nil, item["serverErrorCode"]?.string != "NOT_FOUND" {
                    deleteResults[id] = .failure(CKError.from(server: item, scope: databaseScope, zoneID: zone))
                } else {
                    // Deleting what is already gone succeeds in CloudKit.
                    deleteResults[id] = .success(())
                }
            }
        }
        return (saveResults, deleteResults)
    }

    /// A `.serverRecordChanged` whose `serverRecord` is the server's copy: taken from the answer, or fetched
    /// when the answer lacks it.
    func saveError(_ item: WireObject, record: CKRecord, zone: CKRecordZone.ID) async throws -> CKError {
        var e = CKError.from(server: item, scope: databaseScope, zoneID: zone, clientRecord: record)
        if e.code == .serverRecordChanged, e.serverRecord == nil, let server = try? await self.record(for: record.recordID) {
            var info = e.userInfo
            info[CKRecordChangedErrorServerRecordKey] = server
            e = CKError(e.code, userInfo: info)
        }
        return e
    }

    /// One `records/modify` operation for a save under CloudKit's save policies: `.ifServerRecordUnchanged` sends
    /// the changed keys with the change tag (`update`, or `create` for a record never saved); `.changedKeys` the
    /// changed keys without it (`forceUpdate`); `.allKeys` every key the record holds and every key it removed,
    /// without the tag (`forceUpdate` too: a server field the local record does not carry is left alone, as
    /// CloudKit leaves it). Assets are uploaded first.
    func saveOperation(_ r: CKRecord, policy: RecordSavePolicy) async throws -> WireObject {
        let keys = policy == .allKeys ? orderedUnique(r.storedKeys + r.changedStoredKeys) : r.changedStoredKeys
        var uploaded: [String: WireObject] = [:]
        for key in keys {
            if let asset = r.values[key] as? CKAsset, asset.receipt == nil { uploaded[key] = try await upload(asset,
                    record: r, field: key) }
        }
        var record: WireObject = ["recordName": JSON(r.recordID.recordName), "recordType": JSON(r.recordType),
                                     "fields": JSON(RecordCoder.fieldsJSON(r, keys: keys, uploaded: uploaded))]
        if let p = r.parent { record["parent"] = ["recordName": JSON(p.recordID.recordName)] }
        if let share = r as? CKShare { share.writeShare(into: &record) }
        let type: String
        switch policy {
        case .ifServerRecordUnchanged:
            if let tag = r.recordChangeTag {
                record["recordChangeTag"] = JSON(tag)
                type = "update"
            } else {
                type = "create"
            }
        case .changedKeys, .allKeys: type = "forceUpdate"
        }
        return ["operationType": JSON(type), "record": JSON(record)]
    }

    /// Uploads an asset's file: `assets/upload` for a URL, then the bytes to it; the answer is the ASSETID value.
    func upload(_ asset: CKAsset, record: CKRecord, field: String) async throws -> WireObject {
        guard let file = asset.fileURL, let data = try? Data(contentsOf: file) else {
            throw CKError.make(.assetFileNotFound, "the asset file \(asset.fileURL?.path ?? "(none)") cannot be read")
        }
        let j = try await call("assets/upload", ["zoneID": JSON(RecordCoder.zoneJSON(record.recordID.zoneID)),
                                                  "tokens": [["recordName": JSON(record.recordID.recordName),
                                                              "recordType": JSON(record.recordType),
                                                          "fieldName": JSON(field)]]])
        guard let token = (j["tokens"]?.objects)?.first, let s = token["url"]?.string, let url = URL(string: s) else {
            throw CKError.make(.serverResponseLost, "assets/upload gave no upload URL")
        }
        var req = URLRequest(url: url)
        req.httpMethod = "POST"
        req.httpBody = data
        req.timeoutInterval = services.configuration.timeoutIntervalForRequest
        req.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (answer, http) = try await services.perform(req)
        let body = try services.read(answer, http)
        guard let single = body["singleFile"]?.object else { throw CKError.make(.serverResponseLost,
                "the asset upload gave no receipt") }
        // The uploaded file is the cached copy too, so a fetch of this record finds it locally.
        if let checksum = single["fileChecksum"]?.string {
            let cached = services.assets.file(checksum: checksum)
            if !FileManager.default.fileExists(atPath: cached.path) { try? data.write(to: cached) }
        }
        return single
    }

    // MARK: Query

    /// Mirrors `CKDatabase.records(matching:inZoneWith:desiredKeys:resultsLimit:)`.
    public func records(matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil,
                        desiredKeys: [CKRecord.FieldKey]? = nil,
                        resultsLimit: Int = CKQueryOperation.maximumResults) async throws
        -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        try await runQuery(query, zoneID: zoneID, marker: nil, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// Mirrors `CKDatabase.records(continuingMatchFrom:desiredKeys:resultsLimit:)`.
    public func records(continuingMatchFrom queryCursor: CKQueryOperation.Cursor,
                        desiredKeys: [CKRecord.FieldKey]? = nil,
                        resultsLimit: Int = CKQueryOperation.maximumResults) async throws
        -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        try await runQuery(queryCursor.query, zoneID: queryCursor.zoneID, marker: queryCursor.marker,
                           desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    func runQuery(_ query: CKQuery, zoneID: CKRecordZone.ID?, marker: String?, desiredKeys: [CKRecord.FieldKey]?,
                  resultsLimit: Int) async throws
        -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        let zone = zoneID ?? .default
        var body: WireObject = ["query": try JSON(query.wireQuery()), "zoneID": JSON(RecordCoder.zoneJSON(zone))]
        if resultsLimit > 0, resultsLimit != CKQueryOperation.maximumResults { body["resultsLimit"] = JSON(resultsLimit) }
        if let marker { body["continuationMarker"] = JSON(marker) }
        if let desiredKeys { body["desiredKeys"] = JSON(desiredKeys) }
        let j = try await call("records/query", body)
        let decoded = try await decode(j["records"]?.objects ?? [], zoneID: zone)
        var results: [(CKRecord.ID, Result<CKRecord, any Error>)] = []
        results.reserveCapacity(decoded.count)
        for d in decoded {
            if case .record(let r) = d {
                r.isPartial = desiredKeys != nil
                results.append((r.recordID, .success(r)))
            } else if case .failure(let item) = d, let id = recordID(item, zoneID: zone) {
                results.append((id, .failure(CKError.from(server: item, scope: databaseScope, zoneID: zone))))
            }
        }
        let cursor = (j["continuationMarker"]?.string).map { CKQueryOperation.Cursor(marker: $0, query: query,
                zoneID: zoneID) }
        return (results, cursor)
    }
}

/// Groups items by a key, keeping the first-seen order of keys.
func grouped<T, K: Hashable>(_ items: [T], by key: (T) -> K) -> [(K, [T])] {
    var order: [K] = []
    var groups: [K: [T]] = [:]
    for item in items {
        let k = key(item)
        if groups[k] == nil { order.append(k) }
        groups[k, default: []].append(item)
    }
    return order.map { ($0, groups[$0]!) }
}

func orderedUnique<K: Hashable>(_ items: [K]) -> [K] {
    var seen = Set<K>()
    return items.filter { seen.insert($0).inserted }
}
