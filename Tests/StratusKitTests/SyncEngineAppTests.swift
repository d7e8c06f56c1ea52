import Foundation
import StratusKit
import Testing

/// A contacts app written the way Apple's CKSyncEngine sample teaches, as nobody here would bend it to Stratus:
/// the zone is created when the engine reports `.accountChange(.signIn)`, each contact keeps the archived system
/// fields of its last server copy, a conflict is settled by the contact's own modification date, a lost zone is
/// recreated and a record deleted elsewhere is saved anew without its stale system fields.
final class ContactsDevice: CKSyncEngineDelegate, @unchecked Sendable {
    struct Contact: Equatable {
        var name: String
        var modified: Date
        /// `encodeSystemFields(with:)` of the last copy the server answered with.
        var systemFields: Data?
    }

    static let zone = CKRecordZone.ID(zoneName: "Contacts")
    let lock = NSLock()
    private var contacts: [String: Contact] = [:]
    private(set) var signIns = 0
    var engine: CKSyncEngine!

    init(_ container: CKContainer) {
        var config = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: nil, delegate: self)
        config.automaticallySync = false
        engine = CKSyncEngine(config)
    }

    func contact(_ id: String) -> Contact? { lock.withLock { contacts[id] } }
    var count: Int { lock.withLock { contacts.count } }

    func save(_ id: String, name: String, at date: Date = Date()) {
        lock.withLock {
            var c = contacts[id] ?? Contact(name: name, modified: date)
            c.name = name
            c.modified = date
            contacts[id] = c
        }
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: id, zoneID: Self.zone))])
    }

    func remove(_ id: String) {
        lock.withLock { contacts[id] = nil }
        engine.state.add(pendingRecordZoneChanges: [.deleteRecord(CKRecord.ID(recordName: id, zoneID: Self.zone))])
    }

    private func archive(_ record: CKRecord) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        return coder.encodedData
    }

    private func unarchive(_ data: Data?) -> CKRecord? {
        guard let data, let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        coder.requiresSecureCoding = true
        return CKRecord(coder: coder)
    }

    /// The server's copy wins when it was modified later; this device's local edit is kept otherwise.
    private func merge(_ record: CKRecord) {
        let id = record.recordID.recordName
        let server = Contact(name: record["name"] as? String ?? "", modified: record["modified"] as? Date ?? .distantPast, systemFields: archive(record))
        if let local = contacts[id], local.modified > server.modified {
            contacts[id]?.systemFields = server.systemFields
        } else {
            contacts[id] = server
        }
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .accountChange(let change):
            if case .signIn = change.changeType {
                // Apple's sample: on sign-in, create the zone and upload everything this device holds.
                let ids = lock.withLock { () -> [String] in
                    signIns += 1
                    return contacts.keys.sorted()
                }
                syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: Self.zone))])
                syncEngine.state.add(pendingRecordZoneChanges: ids.map { .saveRecord(CKRecord.ID(recordName: $0, zoneID: Self.zone)) })
            }
        case .fetchedDatabaseChanges(let changes):
            lock.withLock {
                if changes.deletions.contains(where: { $0.zoneID == Self.zone }) { contacts = [:] }
            }
        case .fetchedRecordZoneChanges(let changes):
            lock.withLock {
                for m in changes.modifications { merge(m.record) }
                for d in changes.deletions { contacts[d.recordID.recordName] = nil }
            }
        case .sentRecordZoneChanges(let sent):
            var again: [CKSyncEngine.PendingRecordZoneChange] = []
            var zoneLost = false
            lock.withLock {
                for r in sent.savedRecords { contacts[r.recordID.recordName]?.systemFields = archive(r) }
                for failure in sent.failedRecordSaves {
                    let id = failure.record.recordID
                    switch failure.error.code {
                    case .serverRecordChanged:
                        if let server = failure.error.serverRecord { merge(server) }
                        again.append(.saveRecord(id))
                    case .zoneNotFound:
                        zoneLost = true
                        contacts[id.recordName]?.systemFields = nil
                        again.append(.saveRecord(id))
                    case .unknownItem:
                        contacts[id.recordName]?.systemFields = nil
                        again.append(.saveRecord(id))
                    default:
                        Issue.record("unexpected failure \(failure.error.code) for \(id.recordName)")
                    }
                }
            }
            if zoneLost { syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: Self.zone))]) }
            if !again.isEmpty { syncEngine.state.add(pendingRecordZoneChanges: again) }
        default:
            break
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let pending = syncEngine.state.pendingRecordZoneChanges.filter { context.options.scope.contains($0) }
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { id in
            self.lock.withLock {
                guard let contact = self.contacts[id.recordName] else {
                    syncEngine.state.remove(pendingRecordZoneChanges: [.saveRecord(id)])
                    return nil
                }
                let record = self.unarchive(contact.systemFields) ?? CKRecord(recordType: "Contact", recordID: id)
                record["name"] = contact.name
                record["modified"] = contact.modified
                return record
            }
        }
    }
}

/// Two devices of one user on CKSyncEngine, tested as the sample app's own suite tests them.
@Suite(.serialized) struct SyncEngineAppTests {
    /// A date with more precision than a millisecond, as `Date()` has.
    static let fine = Date(timeIntervalSinceReferenceDate: 786_000_269.965_555_7)

    @Test func theFirstStartCreatesTheZoneFromSignInAndRecordsReachTheOtherDevice() async throws {
        let f = try await KitFixture()
        let a = ContactsDevice(f.aliceContainer()), b = ContactsDevice(f.aliceContainer())
        a.save("c0", name: "Ada", at: Self.fine)
        // Nothing was added to the state by hand: the zone comes from the sign-in event.
        try await a.engine.sendChanges()
        #expect(a.signIns == 1)
        try await b.engine.fetchChanges()
        #expect(b.contact("c0")?.name == "Ada")
        #expect(b.contact("c0")?.modified == Self.fine, "a date is equal after the round trip")

        for i in 1...10 { a.save("c\(i)", name: "Contact \(i)") }
        try await a.engine.sendChanges()
        try await b.engine.fetchChanges()
        #expect(b.count == 11)

        for i in 11..<455 { a.save("c\(i)", name: "Contact \(i)") }   // 444 more: two batches of at most 400
        try await a.engine.sendChanges()
        try await b.engine.fetchChanges()
        #expect(b.count == 455)
        #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)

        // A rename and a deletion on B reach A.
        b.save("c3", name: "Renamed")
        b.remove("c4")
        try await b.engine.sendChanges()
        try await a.engine.fetchChanges()
        #expect(a.contact("c3")?.name == "Renamed")
        #expect(a.contact("c4") == nil)
        #expect(a.count == 454)
        #expect(b.signIns == 1)
    }

    @Test func aZoneDeletedByTheOtherDeviceFailsTheFirstSendAndTheSecondRecreatesIt() async throws {
        let f = try await KitFixture()
        let a = ContactsDevice(f.aliceContainer()), b = ContactsDevice(f.aliceContainer())
        a.save("c0", name: "Ada")
        try await a.engine.sendChanges()
        try await b.engine.fetchChanges()
        b.engine.state.add(pendingDatabaseChanges: [.deleteZone(ContactsDevice.zone)])
        try await b.engine.sendChanges()
        // A has not heard of it: its edit carries the system fields of a zone that is gone.
        a.save("c0", name: "Ada Lovelace")
        let error = try await #require(throws: CKError.self) { try await a.engine.sendChanges() }
        #expect(error.code == .partialFailure)
        #expect((error.partialErrorsByItemID?.values.first as? CKError)?.code == .zoneNotFound)
        try await a.engine.sendChanges()
        let back = try await f.aliceContainer().privateCloudDatabase.record(for: CKRecord.ID(recordName: "c0", zoneID: ContactsDevice.zone))
        #expect(back["name"] as? String == "Ada Lovelace")
        #expect(a.engine.state.pendingRecordZoneChanges.isEmpty && a.engine.state.pendingDatabaseChanges.isEmpty)
    }

    @Test func aRecordDeletedByTheOtherDeviceIsUnknownAndSavedAnew() async throws {
        let f = try await KitFixture()
        let a = ContactsDevice(f.aliceContainer()), b = ContactsDevice(f.aliceContainer())
        a.save("c0", name: "Ada")
        try await a.engine.sendChanges()
        try await b.engine.fetchChanges()
        b.remove("c0")
        try await b.engine.sendChanges()
        a.save("c0", name: "Ada, still here")
        let error = try await #require(throws: CKError.self) { try await a.engine.sendChanges() }
        #expect((error.partialErrorsByItemID?.values.first as? CKError)?.code == .unknownItem)
        try await a.engine.sendChanges()
        try await b.engine.fetchChanges()
        #expect(b.contact("c0")?.name == "Ada, still here")
    }

    @Test func aConflictIsSettledByModificationDateOnBothDevices() async throws {
        let f = try await KitFixture()
        let a = ContactsDevice(f.aliceContainer()), b = ContactsDevice(f.aliceContainer())
        a.save("c0", name: "Ada", at: Self.fine)
        try await a.engine.sendChanges()
        try await b.engine.fetchChanges()
        // B's edit is the later one, but A sends first.
        let earlier = Self.fine.addingTimeInterval(10.000_123_4), later = Self.fine.addingTimeInterval(20.000_567_8)
        a.save("c0", name: "From A", at: earlier)
        b.save("c0", name: "From B", at: later)
        try await a.engine.sendChanges()
        await #expect(throws: CKError.self) { try await b.engine.sendChanges() }   // serverRecordChanged; B's is newer
        try await b.engine.sendChanges()
        try await a.engine.fetchChanges()
        #expect(a.contact("c0")?.name == "From B")
        #expect(a.contact("c0")?.modified == later)
        #expect(b.contact("c0")?.modified == later)

        // And the other way: the later edit is on the server already, so the older device takes it.
        a.save("c0", name: "Newest from A", at: later.addingTimeInterval(5))
        b.save("c0", name: "Stale from B", at: later.addingTimeInterval(1))
        try await a.engine.sendChanges()
        await #expect(throws: CKError.self) { try await b.engine.sendChanges() }
        try await b.engine.sendChanges()
        #expect(b.contact("c0")?.name == "Newest from A")
        let server = try await f.aliceContainer().privateCloudDatabase.record(for: CKRecord.ID(recordName: "c0", zoneID: ContactsDevice.zone))
        #expect(server["name"] as? String == "Newest from A")
        #expect(server["modified"] as? Date == later.addingTimeInterval(5))
    }
}
