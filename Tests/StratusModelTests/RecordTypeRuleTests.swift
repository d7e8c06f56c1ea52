import StratusModel
import Testing

/// A saved record's type: a replaced record keeps its own, a new one names one, a Users record is the server's.
@Suite struct RecordTypeRuleTests {
    /// (type sent, type of the record replaced, made by the server for its user, the type saved; nil: BAD_REQUEST).
    static let cases: [(String, String?, Bool, String?)] = [
        ("Note", nil, false, "Note"),
        ("", "Note", false, "Note"),
        ("Note", "Note", false, "Note"),
        ("Task", "Note", false, nil),
        ("", nil, false, nil),
        (UserRecord.recordType, nil, false, nil),
        (UserRecord.recordType, nil, true, UserRecord.recordType),
        (UserRecord.recordType, UserRecord.recordType, false, UserRecord.recordType),
    ]

    @Test(arguments: cases)
    func theSavedTypeIsTheRecordsOwn(_ sent: String, _ old: String?, _ makesUserRecord: Bool, _ expected: String?) {
        let incoming = StoredRecord(recordName: "r", recordType: sent)
        let replaced = old.map { StoredRecord(recordName: "r", recordType: $0) }
        do {
            #expect(try RecordTypeRule.type(of: incoming, replacing: replaced, makesUserRecord: makesUserRecord) == expected)
        } catch {
            #expect(expected == nil && error.code == .badRequest)
        }
    }

    /// (operation, whether the record exists, whether it may go on).
    static let missing: [(OperationType, Bool, Bool)] = [
        (.create, false, true), (.update, false, false), (.replace, false, false), (.forceUpdate, false, true),
        (.forceReplace, false, true), (.delete, false, false), (.forceDelete, false, false), (.update, true, true),
    ]

    @Test(arguments: missing)
    func onlyOperationsThatCreateMeetNothing(_ type: OperationType, _ exists: Bool, _ goesOn: Bool) {
        do {
            try RecordTypeRule.mayApply(type, exists: exists, recordName: "r")
            #expect(goesOn)
        } catch {
            #expect(!goesOn && error.code == .notFound)
        }
    }
}
