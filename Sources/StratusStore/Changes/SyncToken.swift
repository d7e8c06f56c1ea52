import Crypto
import Foundation
import StratusModel

/// Sync tokens: a zone's (or a database's) position in the change log.
enum SyncToken {
    static let zoneKind: UInt8 = 1
    static let databaseKind: UInt8 = 2
    /// A shared database's token: a position per owner (see `SharedPositions`).
    static let sharedKind: UInt8 = 3

    static func zone(_ signer: TokenSigner, zoneRowID: Int64, seq: Int64) -> String {
        var p = TokenPayload()
        p.put(zoneRowID)
        p.put(seq)
        p.put(WallClock.nowMillis() / 1000)
        return signer.sign(kind: zoneKind, p.bytes)
    }

    /// When a token was handed out (seconds), if it says (tokens made before that part was added do not), and
    /// CHANGE_TOKEN_EXPIRED when that is longer ago than `retention` (ms; 0: no limit).
    static func checkAge(_ p: inout TokenPayload, retention: Int64) throws(StratusError) {
        guard !p.atEnd else { return }
        guard let issued = p.int(), p.atEnd else { throw .badRequest("syncToken is not valid") }
        if retention > 0, WallClock.nowMillis() / 1000 - issued > retention / 1000 {
            throw StratusError(.changeTokenExpired,
                               "this syncToken is older than the \(retention / 86_400_000) days changes are kept for it: fetch from scratch")
        }
    }

    /// The position a zone token holds. A token this server can no longer continue is CHANGE_TOKEN_EXPIRED, on which
    /// CloudKit clients fetch the zone from scratch: one of a zone that was deleted (and perhaps created again), or
    /// one made by another environment or server. Anything that is not a token at all is BAD_REQUEST.
    /// `isLiveZone` tells a token of another zone that still exists (the client's mistake, BAD_REQUEST) from one
    /// of a zone that is gone.
    static func readZone(_ signer: TokenSigner, _ token: String, zoneRowID: Int64, retention: Int64 = 0,
                         isLiveZone: (Int64) -> Bool = { _ in false }) throws(StratusError) -> Int64 {
        var p = TokenPayload(try verify(signer, zoneKind, token))
        guard let z = p.int(), let seq = p.int(), seq >= 0 else { throw .badRequest("syncToken is not valid") }
        try checkAge(&p, retention: retention)
        guard z == zoneRowID else {
            if z != 0 && isLiveZone(z) { throw .badRequest("this syncToken belongs to another zone") }
            throw StratusError(.changeTokenExpired,
                               "this syncToken is of a zone that was deleted since (or of another zone): fetch the zone's changes from scratch")
        }
        return seq
    }

    /// The payload of a token of `kind`; a well-formed token whose signature this environment does not know is one
    /// issued elsewhere (another environment or server), so it has expired here rather than being malformed.
    static func verify(_ signer: TokenSigner, _ kind: UInt8, _ token: String) throws(StratusError) -> [UInt8] {
        do {
            return try signer.verify(kind: kind, token, what: "syncToken")
        } catch {
            if kind == sharedKind, let bytes = Base64URL.decode(token), bytes.count > 13, bytes[0] == kind {
                throw StratusError(.changeTokenExpired,
                                   "this syncToken was issued by another environment or server: fetch from scratch")
            }
            if let bytes = Base64URL.decode(token), bytes.count > 13, bytes[0] == kind {
                var p = TokenPayload(Array(bytes[1..<(bytes.count - 12)]))
                if p.int() != nil, let seq = p.int(), seq >= 0, p.atEnd || (p.int() != nil && p.atEnd) {
                    throw StratusError(.changeTokenExpired,
                                       "this syncToken was issued by another environment or server: fetch from scratch")
                }
            }
            throw error
        }
    }

    static func databaseTag(_ database: DatabaseID) -> Int64 {
        let d = SHA256.hash(data: Data("\(database.scope.rawValue)/\(database.ownerRecordName)".utf8))
        return d.prefix(8).reduce(0) { ($0 << 8) | Int64($1) }
    }

    static func database(_ signer: TokenSigner, _ database: DatabaseID, seq: Int64) -> String {
        var p = TokenPayload()
        p.put(databaseTag(database))
        p.put(seq)
        p.put(WallClock.nowMillis() / 1000)
        return signer.sign(kind: databaseKind, p.bytes)
    }

    static func readDatabase(_ signer: TokenSigner, _ token: String, _ database: DatabaseID,
                             retention: Int64 = 0) throws(StratusError) -> Int64 {
        var p = TokenPayload(try verify(signer, databaseKind, token))
        guard let tag = p.int(), let seq = p.int(), seq >= 0 else { throw .badRequest("syncToken is not valid") }
        try checkAge(&p, retention: retention)
        guard tag == databaseTag(database) else { throw .badRequest("syncToken belongs to another database") }
        return seq
    }

    /// A participant's shared-database token: the database's tag, then each owner's position, then when it was made.
    static func shared(_ signer: TokenSigner, _ database: DatabaseID, _ positions: SharedPositions) -> String {
        var p = TokenPayload()
        p.put(databaseTag(database))
        p.put(positions.rest)
        p.put(Int64(positions.byOwner.count))
        for (owner, seq) in positions.byOwner.sorted(by: { $0.key < $1.key }) {
            p.put(owner)
            p.put(seq)
        }
        p.put(WallClock.nowMillis() / 1000)
        return signer.sign(kind: sharedKind, p.bytes)
    }

    /// The positions a shared-database token holds. A database token of the shared database made before positions
    /// were per owner still resumes: its one number orders below every owner's changes since.
    static func readShared(_ signer: TokenSigner, _ token: String, _ database: DatabaseID,
                           retention: Int64 = 0) throws(StratusError) -> SharedPositions {
        if let bytes = Base64URL.decode(token), bytes.first == databaseKind {
            return SharedPositions(rest: try readDatabase(signer, token, database, retention: retention))
        }
        var p = TokenPayload(try verify(signer, sharedKind, token))
        guard let tag = p.int(), let rest = p.int(), rest >= 0, let count = p.int(), count >= 0, count <= Int64(SharedPositions.maximumOwners)
        else { throw .badRequest("syncToken is not valid") }
        var positions = SharedPositions(rest: rest)
        for _ in 0..<Int(count) {
            guard let owner = p.int(), let seq = p.int(), seq >= 0 else { throw .badRequest("syncToken is not valid") }
            positions.byOwner[owner] = seq
        }
        try checkAge(&p, retention: retention)
        guard tag == databaseTag(database) else { throw .badRequest("syncToken belongs to another database") }
        return positions
    }
}
