import Foundation
import StratusModel

/// One change a write hands to the notification fan-out: a record as it was and as it is, or a zone created or
/// deleted, where it happened. A write keeps it in `notification_outbox` in its own transaction (so nothing is lost
/// between commit and delivery) and goes on; the fan-out turns it into notifications after the commit (see
/// `NotificationFanOut`). The records are kept as the notifications need them: name, type, stamps and fields, with
/// ENCRYPTED fields already left out.
struct NotificationChange: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case record(before: StoredRecord?, after: StoredRecord?, zoneRow: Int64?)
        case zone(deleted: Bool)
    }
    var kind: Kind
    var database: DatabaseID
    var zone: ZoneID

    /// The bytes kept in the outbox (version 1): a kind byte, the database, the zone, then the record change.
    var encoded: Data {
        var p = TokenPayload()
        p.bytes.append(1)
        p.put(Array(database.scope.rawValue.utf8))
        p.put(Array(database.ownerRecordName.utf8))
        p.put(Array(zone.zoneName.utf8))
        Self.put(zone.ownerRecordName, &p)
        switch kind {
        case .zone(let deleted):
            p.bytes.append(0)
            p.put(Int64(deleted ? 1 : 0))
        case .record(let before, let after, let zoneRow):
            p.bytes.append(1)
            p.put(zoneRow ?? -1)
            Self.put(before, &p)
            Self.put(after, &p)
        }
        return Data(p.bytes)
    }

    init(kind: Kind, database: DatabaseID, zone: ZoneID) {
        self.kind = kind
        self.database = database
        self.zone = zone
    }

    /// A change back from its bytes; nil for bytes this version did not write (never a trap).
    init?(_ data: Data) {
        var p = TokenPayload(Array(data))
        guard p.byte() == 1, let scope = p.text().flatMap(DatabaseScope.init(rawValue:)), let owner = p.text(), let zoneName = p.text(),
              let zoneOwner = Self.optionalText(&p) else { return nil }
        database = DatabaseID(scope: scope, ownerRecordName: owner)
        zone = ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner)
        switch p.byte() {
        case 0:
            guard let d = p.int() else { return nil }
            kind = .zone(deleted: d == 1)
        case 1:
            guard let row = p.int(), let before = Self.record(&p), let after = Self.record(&p) else { return nil }
            kind = .record(before: before, after: after, zoneRow: row < 0 ? nil : row)
        default: return nil
        }
        guard p.atEnd else { return nil }
    }

    private static func put(_ text: String?, _ p: inout TokenPayload) {
        if let text { p.bytes.append(1); p.put(Array(text.utf8)) } else { p.bytes.append(0) }
    }

    private static func optionalText(_ p: inout TokenPayload) -> String?? {
        switch p.byte() {
        case 0: .some(nil)
        case 1: p.text().map { .some($0) }
        default: nil
        }
    }

    private static func put(_ stamp: RecordStamp?, _ p: inout TokenPayload) {
        guard let stamp else { p.bytes.append(0); return }
        p.bytes.append(1)
        p.put(stamp.timestamp)
        p.put(Array(stamp.userRecordName.utf8))
        p.put(Array(stamp.deviceID.utf8))
    }

    private static func stamp(_ p: inout TokenPayload) -> RecordStamp?? {
        switch p.byte() {
        case 0: return .some(nil)
        case 1:
            guard let ts = p.int(), let user = p.text(), let device = p.text() else { return nil }
            return .some(RecordStamp(timestamp: ts, userRecordName: user, deviceID: device))
        default: return nil
        }
    }

    private static func put(_ record: StoredRecord?, _ p: inout TokenPayload) {
        guard let r = record else { p.bytes.append(0); return }
        p.bytes.append(1)
        p.put(Array(r.recordName.utf8))
        p.put(Array(r.recordType.utf8))
        put(r.recordChangeTag, &p)
        put(r.created, &p)
        put(r.modified, &p)
        p.put(Int64(r.fields.count))
        for (name, value) in r.fields.sorted(by: { $0.key < $1.key }) {
            p.put(Array(name.utf8))
            p.put(Array(FieldValueCodec.encode(value)))
        }
    }

    /// A record or none (`.some(nil)`); nil for damaged bytes.
    private static func record(_ p: inout TokenPayload) -> StoredRecord?? {
        switch p.byte() {
        case 0: return .some(nil)
        case 1: break
        default: return nil
        }
        guard let name = p.text(), let type = p.text(), let tag = optionalText(&p), let created = stamp(&p), let modified = stamp(&p),
              let count = p.int(), count >= 0, count <= 100_000 else { return nil }
        var fields: [(key: String, value: FieldValue)] = []
        fields.reserveCapacity(Int(min(count, 64)))
        for _ in 0..<count {
            guard let field = p.text(), let bytes = p.data(), let value = try? FieldValueCodec.decode(Data(bytes)) else { return nil }
            fields.append((field, value))
        }
        return .some(StoredRecord(recordName: name, recordType: type, recordChangeTag: tag,
                                  fields: RecordFields(fields),
                                  created: created, modified: modified))
    }
}

private extension TokenPayload {
    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func text() -> String? { data().map { String(decoding: $0, as: UTF8.self) } }
}
