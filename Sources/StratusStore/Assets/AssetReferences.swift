import GRDB
import StratusModel

/// Counts how many record values point at each stored asset, inside the writing transaction.
enum AssetReferences {
    /// Refuses a value that points at content never uploaded, before anything is written.
    static func check(_ checksum: String, _ db: Database) throws {
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM assets WHERE checksum = ?"), arguments: [checksum]) ?? false else {
            throw StratusError.badRequest("asset \(checksum.prefix(64)) was never uploaded: upload its content first")
        }
    }

    static func retain(_ checksum: String, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE assets SET refs = refs + 1 WHERE checksum = ?").execute(arguments: [checksum])
        guard db.changesCount == 1 else {
            throw StratusError.badRequest("asset \(checksum.prefix(64)) was never uploaded: upload its content first")
        }
    }

    static func release(_ checksum: String, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE assets SET refs = max(refs - 1, 0) WHERE checksum = ?").execute(arguments: [checksum])
    }
}
