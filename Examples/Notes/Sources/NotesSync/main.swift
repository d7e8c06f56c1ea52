// notes-sync: a notes app for the command line that works offline and syncs through StratusKit's CKSyncEngine.
// Each copy keeps its notes and the engine's state in one JSON file; run two copies with two --cache files (two
// "devices") to watch edits, deletions and conflicts travel. Configured by the STRATUS_* variables.
//
//   notes-sync --cache a.json add "buy milk"      notes-sync --cache a.json list
//   notes-sync --cache a.json edit ID "text"      notes-sync --cache a.json delete ID
//   notes-sync --cache a.json sync                 notes-sync --cache a.json watch 30
import Foundation
import StratusKit

/// What a device keeps: its notes, the server's last copy of each (system fields only, for change tags), and the
/// engine's state.
struct Cache: Codable {
    var notes: [String: String] = [:]
    var systemFields: [String: Data] = [:]
    var engineState: CKSyncEngine.State.Serialization?
}

final class NotesApp: CKSyncEngineDelegate, @unchecked Sendable {
    let file: URL
    let zone = CKRecordZone.ID(zoneName: "Notes")
    private let lock = NSLock()
    private var cache: Cache
    var engine: CKSyncEngine!

    init(file: URL, automatic: Bool) {
        self.file = file
        cache = (try? JSONDecoder().decode(Cache.self, from: Data(contentsOf: file))) ?? Cache()
        let fresh = cache.engineState == nil
        var config = CKSyncEngine.Configuration(database: CKContainer.default().privateCloudDatabase, stateSerialization: cache.engineState, delegate: self)
        config.automaticallySync = automatic
        engine = CKSyncEngine(config)
        if fresh { engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zone))]) }
    }

    func locked<T>(_ body: (inout Cache) -> T) -> T {
        lock.lock()
        defer { lock.unlock(); try? JSONEncoder().encode(cache).write(to: file, options: .atomic) }
        return body(&cache)
    }

    func set(_ id: String, _ text: String?) {
        locked { $0.notes[id] = text }
        let recordID = CKRecord.ID(recordName: id, zoneID: zone)
        engine.state.add(pendingRecordZoneChanges: [text == nil ? .deleteRecord(recordID) : .saveRecord(recordID)])
    }

    func list() -> [(String, String)] { locked { $0.notes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } } }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let u):
            locked { $0.engineState = u.stateSerialization }
        case .fetchedRecordZoneChanges(let c):
            // A note with a change still to send keeps this device's text (its send is based on the fetched version).
            let pending = Set(syncEngine.state.pendingRecordZoneChanges.map(\.recordID.recordName))
            locked { cache in
                for m in c.modifications {
                    let text = m.record["text"] as? String ?? ""
                    cache.systemFields[m.recordID.recordName] = Self.systemFields(m.record)
                    if pending.contains(m.recordID.recordName) { continue }
                    if cache.notes[m.recordID.recordName] != text { print("← \(m.recordID.recordName): \(text)") }
                    cache.notes[m.recordID.recordName] = text
                }
                for d in c.deletions where cache.notes[d.recordID.recordName] != nil {
                    print("← \(d.recordID.recordName) deleted")
                    cache.notes[d.recordID.recordName] = nil
                    cache.systemFields[d.recordID.recordName] = nil
                }
            }
        case .sentRecordZoneChanges(let s):
            var again: [CKSyncEngine.PendingRecordZoneChange] = []
            locked { cache in
                for r in s.savedRecords { cache.systemFields[r.recordID.recordName] = Self.systemFields(r); print("→ \(r.recordID.recordName) saved") }
                for f in s.failedRecordSaves {
                    guard f.error.code == .serverRecordChanged, let server = f.error.serverRecord else { print("× \(f.record.recordID.recordName): \(f.error)"); continue }
                    // Both devices changed the note: keep both texts.
                    let mine = cache.notes[f.record.recordID.recordName] ?? "", theirs = server["text"] as? String ?? ""
                    cache.notes[f.record.recordID.recordName] = mine == theirs ? mine : "\(theirs) | \(mine)"
                    cache.systemFields[f.record.recordID.recordName] = Self.systemFields(server)
                    print("⇄ \(f.record.recordID.recordName) merged")
                    again.append(.saveRecord(f.record.recordID))
                }
            }
            if !again.isEmpty { syncEngine.state.add(pendingRecordZoneChanges: again) }
        case .fetchedDatabaseChanges(let c):
            for d in c.deletions where d.zoneID.zoneName == zone.zoneName {
                // The notes zone was deleted elsewhere: this device's notes go up again into a new one.
                let ids = locked { cache -> [String] in cache.systemFields = [:]; return Array(cache.notes.keys) }
                syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zone))])
                syncEngine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord(CKRecord.ID(recordName: $0, zoneID: zone)) })
            }
        default:
            break
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: syncEngine.state.pendingRecordZoneChanges) { id in
            self.locked { cache -> CKRecord? in
                guard let text = cache.notes[id.recordName] else { return nil }
                let record = cache.systemFields[id.recordName].flatMap(Self.record(systemFields:)) ?? CKRecord(recordType: "Note", recordID: id)
                record["text"] = text
                return record
            }
        }
    }

    static func systemFields(_ r: CKRecord) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        r.encodeSystemFields(with: coder)
        coder.finishEncoding()
        return coder.encodedData
    }

    static func record(systemFields data: Data) -> CKRecord? {
        guard let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        coder.requiresSecureCoding = true
        return CKRecord(coder: coder)
    }
}

var args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 3, args[0] == "--cache" else {
    print("usage: notes-sync --cache FILE add TEXT | edit ID TEXT | delete ID | list | sync | watch SECONDS")
    exit(2)
}
let file = URL(fileURLWithPath: args[1])
args.removeFirst(2)
let command = args.removeFirst()
let app = NotesApp(file: file, automatic: command == "watch")
switch command {
case "add":
    let id = "note-" + UUID().uuidString.prefix(8).lowercased()
    app.set(id, args.joined(separator: " "))
    print(id)
case "edit" where args.count >= 2:
    app.set(args[0], args.dropFirst().joined(separator: " "))
case "delete" where args.count == 1:
    app.set(args[0], nil)
case "list":
    for (id, text) in app.list() { print("\(id)\t\(text)") }
case "sync":
    do {
        // A record the server refused (a conflict) is handled in `.sentRecordZoneChanges`, and then sendChanges()
        // throws a partial failure, as CloudKit's engine does: the merge goes up with the last send.
        do { try await app.engine.sendChanges() } catch let e as CKError where e.code == .partialFailure {}
        try await app.engine.fetchChanges()
        try await app.engine.sendChanges()   // merges of conflicts met while sending
        for (id, text) in app.list() { print("\(id)\t\(text)") }
    } catch {
        print("sync failed: \(error) (your changes are kept; sync again)")
        exit(1)
    }
case "watch":
    let seconds = Double(args.first ?? "30") ?? 30
    print("watching for \(Int(seconds)) s (edits from other devices show as ←)")
    try? await Task.sleep(for: .seconds(seconds))
default:
    print("unknown command \(command)")
    exit(2)
}
// Give the last state update time to reach the cache file.
try? await Task.sleep(for: .milliseconds(200))
