import StratusModel
import Testing

/// Optimistic locking: a write that sends the tag it read goes ahead only while the record still has that tag.
@Suite struct ChangeTagRuleTests {
    static let server = StoredRecord(recordName: "r", recordType: "Note", recordChangeTag: "b2")

    /// (the tag the client sent, whether the write goes ahead).
    static let cases: [(String?, Bool)] = [("b2", true), ("b1", false), (nil, false), ("", false), ("B2", false)]

    @Test(arguments: cases)
    func aWriteGoesAheadOnlyWithTheServersTag(_ sent: String?, _ allowed: Bool) {
        let incoming = StoredRecord(recordName: "r", recordType: "Note", recordChangeTag: sent)
        do {
            try ChangeTagRule.check(incoming, server: Self.server)
            #expect(allowed)
        } catch {
            #expect(!allowed)
            #expect(error.code == .conflict && error.serverRecord == Self.server, "a conflict carries the server's record")
        }
    }
}
