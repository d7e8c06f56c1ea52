import Crypto
import Foundation
import StratusModel

/// Sync tokens: a zone's (or a database's) position in the change log.
enum SyncToken {
    static let zoneKind: UInt8 = 1
    static let databaseKind: UInt8 = 2

    static func zone(_ signer: TokenSigner, zoneRowID: Int64, seq: Int64) -> String {
        var p = TokenPayload()
        p.put(zoneRowID)
        p.put(seq)
        return signer.sign(kind: zoneKind, p.bytes)
    }

    static func readZone(_ signer: TokenSigner, _ token: String, zoneRowID: Int64) throws(StratusError) -> Int64 {
        var p = TokenPayload(try signer.verify(kind: zoneKind, token, what: "syncToken"))
        guard let z = p.int(), let seq = p.int(), p.atEnd, seq >= 0 else { throw .badRequest("syncToken is not valid") }
        guard z == zoneRowID else { throw .badRequest("syncToken belongs to another zone, or to a zone that was deleted") }
        return seq
    }

    static func databaseTag(_ database: DatabaseID) -> Int64 {
        let d = SHA256.hash(data: Data("\(database.scope.rawValue)/\(database.ownerRecordName)".utf8))
        return d.prefix(8).reduce(0) { ($0 << 8) | Int64($1) }
    }

    static func database(_ signer: TokenSigner, _ database: DatabaseID, seq: Int64) -> String {
        var p = TokenPayload()
        p.put(databaseTag(database))
        p.put(seq)
        return signer.sign(kind: databaseKind, p.bytes)
    }

    static func readDatabase(_ signer: TokenSigner, _ token: String, _ database: DatabaseID) throws(StratusError) -> Int64 {
        var p = TokenPayload(try signer.verify(kind: databaseKind, token, what: "syncToken"))
        guard let tag = p.int(), let seq = p.int(), p.atEnd, seq >= 0 else { throw .badRequest("syncToken is not valid") }
        guard tag == databaseTag(database) else { throw .badRequest("syncToken belongs to another database") }
        return seq
    }
}
