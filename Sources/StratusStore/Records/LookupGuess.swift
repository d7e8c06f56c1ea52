import Synchronization

/// The record type a `records/lookup` guesses its records are of: the type the environment's lookups found last.
/// The guessed type's row joins the lookup's directory statement, so a lookup of records of that type reads the
/// zone, the directory entries and the rows in one statement — one round trip on PostgreSQL instead of two. A wrong
/// guess costs nothing but the join's probe: the records of other types are read by a second statement, as
/// without a guess. Apps look up records of a few types, so the last one found is mostly right.
final class LookupGuess: Sendable {
    /// A guess made from one catalog: the statement's extra columns and join, and how to read them.
    struct Guess: Sendable {
        let generation: Int64
        let type: CatalogType
        let streamer: RowStreamer
        let selectList, join: String
    }

    private let state = Mutex<(typeID: Int64?, guess: Guess?)>((nil, nil))

    /// The guess for a lookup under `catalog` (the environment's cached one; the statement says whether it was
    /// current). Made once per type and schema generation.
    func guess(_ catalog: Catalog) -> Guess? {
        state.withLock { s in
            guard let typeID = s.typeID else { return nil }
            if let g = s.guess, g.generation == catalog.generation, g.type.id == typeID { return g }
            guard let type = catalog.type(id: typeID) else { return nil }
            let g = Guess(generation: catalog.generation, type: type, streamer: RowStreamer(type: type,
                    fields: type.fields),
                          selectList: RecordRowCodec.selectList(type, fields: type.fields),
                          join: " LEFT JOIN \(type.table) t ON l.type_id = \(type.id) AND t.id = l.record_id")
            s.guess = g
            return g
        }
    }

    /// A lookup found records of a type it did not guess: the next lookup guesses that type.
    func found(_ typeID: Int64) {
        state.withLock { s in
            guard s.typeID != typeID else { return }
            s = (typeID, nil)
        }
    }
}
