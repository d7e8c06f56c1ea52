// The CloudKit guides' workflow, unchanged apart from `import StratusKit`: a custom zone, a save, a predicate
// query, changes fetched with CKFetchRecordZoneChangesOperation, and a stale save refused with the server's copy.
// It is configured only through STRATUS_URL, STRATUS_CONTAINER, STRATUS_ENVIRONMENT, STRATUS_API_TOKEN and
// STRATUS_WEB_AUTH_TOKEN, and exits non-zero if CloudKit's behaviour is not what it gets.
import Foundation
import StratusKit

func check(_ ok: Bool, _ what: String) {
    print((ok ? "ok   " : "FAIL ") + what)
    if !ok { exit(1) }
}

let container = CKContainer.default()
let database = container.privateCloudDatabase

// A custom zone, for atomic saves and change tracking.
let zone = CKRecordZone(zoneName: "Notes-\(UUID().uuidString.prefix(8))")
_ = try await database.save(zone)

// Save a record.
let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "first-note", zoneID: zone.zoneID))
note["title"] = "Hello, Stratus"
note["pinned"] = true
note["stars"] = 4
let saved = try await database.save(note)
check(saved.recordChangeTag != nil, "saved a note with a change tag")

// Query it with a predicate.
let query = CKQuery(recordType: "Note", predicateFormat: "stars >= %@ AND title BEGINSWITH %@", 3, "Hello")
query.sortDescriptors = [NSSortDescriptor(key: "stars", ascending: false)]
let (matches, _) = try await database.records(matching: query, inZoneWith: zone.zoneID)
check(matches.count == 1, "the query found the note")

// Fetch the zone's changes, as a sync layer does.
final class Changes: @unchecked Sendable {
    var records: [CKRecord] = []
    var token: CKServerChangeToken?
}
let changes = Changes()
let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken: nil, resultsLimit: 100, desiredKeys: nil)
let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zone.zoneID], configurationsByRecordZoneID: [zone.zoneID: configuration])
operation.recordWasChangedBlock = { _, result in
    if case .success(let record) = result { changes.records.append(record) }
}
operation.recordWithIDWasDeletedBlock = { recordID, _ in print("deleted \(recordID.recordName)") }
operation.recordZoneFetchResultBlock = { _, result in
    if case .success(let (token, _, _)) = result { changes.token = token }
}
await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    operation.fetchRecordZoneChangesResultBlock = { _ in done.resume() }
    database.add(operation)
}
check(changes.records.map(\.recordID) == [note.recordID] && changes.token != nil, "fetched the zone's changes and a token")

// Another device changes the note; this one's save is now stale.
let elsewhere = try await database.record(for: note.recordID)
elsewhere["title"] = "Hello from elsewhere"
_ = try await database.save(elsewhere)
note["stars"] = 5
do {
    _ = try await database.save(note)
    check(false, "a stale save was refused")
} catch let error as CKError where error.code == .serverRecordChanged {
    check(error.serverRecord?["title"] as? String == "Hello from elsewhere", "a stale save was refused with the server's copy")
}

try await database.deleteRecordZone(withID: zone.zoneID)
print("all checks passed")
