import Foundation
import StratusHTTP
import StratusJSON

/// Writes a large answer (a page of records) in pieces: past `spillBytes`, what is written so far goes to the
/// request's spool (see `AnswerSpool`), so that the answer holds a bounded amount of memory while it is made and none
/// of the database while it is read. An answer that stays under it (a page of ordinary records is a few hundred
/// kilobytes) never touches the spool and is sent from the writer's own buffer, with no copy.
struct AnswerWriter {
    var json: JSONWriter
    let spool: AnswerSpool
    /// Bytes written before they go to the spool: what an answer may keep in memory anyway.
    static let spillBytes = 1 << 20

    init(spool: AnswerSpool, capacity: Int = 4096) {
        self.spool = spool
        json = JSONWriter(capacity: capacity)
    }

    /// Between items of the answer: past `spillBytes`, the bytes so far go to the spool.
    mutating func checkpoint() throws {
        if json.count >= Self.spillBytes { try Self.spill(&json, to: spool) }
    }

    static func spill(_ w: inout JSONWriter, to spool: AnswerSpool) throws {
        let piece = w.data
        try piece.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in try spool.append(raw.bindMemory(to: UInt8.self)) }
    }

    /// The finished answer: its bytes as a body when it stayed small, or its spool.
    consuming func response() throws -> HTTPResponse {
        try Self.response(&json, spool: spool)
    }

    static func response(_ w: inout JSONWriter, spool: AnswerSpool) throws -> HTTPResponse {
        guard spool.count > 0 else {
            spool.close()
            return .json(w.data)
        }
        try spill(&w, to: spool)
        var r = HTTPResponse.json(Data())
        r.spool = spool
        return r
    }
}
