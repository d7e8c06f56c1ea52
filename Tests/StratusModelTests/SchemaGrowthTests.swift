import Foundation
import StratusModel
import Testing

/// Schema on write: Development grows the schema a save needs; Production refuses what it lacks.
@Suite struct SchemaGrowthTests {
    static let note = RecordTypeSchema(name: "Note", fields: [
        FieldSchema(name: "title", type: FieldType(.string)),
        FieldSchema(name: "score", type: FieldType(.double)),
    ])
    static let development = SchemaGrowth.Context(environment: .development, scope: .private)
    static let production = SchemaGrowth.Context(environment: .production, scope: .private)

    enum Outcome: Equatable { case none, addsType, addsFields([String]), refused }

    /// (type, its schema, fields saved, encrypted fields, where, what the save does to the schema).
    static let cases: [(String, RecordTypeSchema?, RecordFields, Set<String>, SchemaGrowth.Context, Outcome)] = [
        ("Note", note, ["title": .string("a")], [], development, .none),
        ("Note", note, ["title": .string("a")], [], production, .none),
        ("Note", note, ["body": .string("a")], [], development, .addsFields(["body"])),
        ("Note", note, ["body": .string("a"), "at": .int64(1)], [], development, .addsFields(["at", "body"])),
        ("Note", note, ["body": .string("a")], [], production, .refused),
        ("Task", nil, ["x": .string("a")], [], development, .addsType),
        ("Task", nil, ["x": .string("a")], [], production, .refused),
        ("Note", note, ["title": .int64(1)], [], development, .refused),
        ("Note", note, ["tags": .list(nil, [])], [], development, .refused),
        ("Note", note, ["secret": .string("s")], ["secret"], development, .addsFields(["secret"])),
        ("Note", note, ["title": .string("s")], ["title"], development, .refused),
        ("Note", note, ["link": .reference(Reference(recordName: "x"))], ["link"], development, .refused),
        ("Note", note, ["secret": .string("s")], ["secret"], SchemaGrowth.Context(environment: .development, scope: .public), .refused),
        ("1bad", nil, ["x": .string("a")], [], development, .refused),
        ("Note", note, ["bad name": .string("a")], [], development, .refused),
    ]

    @Test(arguments: cases)
    func aSaveGrowsTheSchemaOnlyWhereCloudKitWould(_ type: String, _ known: RecordTypeSchema?, _ fields: RecordFields, _ encrypted: Set<String>,
                                                  _ context: SchemaGrowth.Context, _ expected: Outcome) {
        var fields = fields
        let outcome: Outcome
        do {
            switch try SchemaGrowth.plan(type, known: known, fields: &fields, encrypted: encrypted, recordName: "r", in: context)?.changes {
            case nil: outcome = .none
            case let changes? where changes.count == 1 && { if case .addRecordType = changes[0] { true } else { false } }():
                outcome = .addsType
            case let changes?:
                outcome = .addsFields(changes.compactMap { if case .addField(_, let f) = $0 { f.name } else { nil } })
            }
        } catch {
            #expect(error.code == .badRequest)
            outcome = .refused
        }
        #expect(outcome == expected)
    }

    /// A value the schema widens is saved widened; an encrypted new field is encrypted and unindexed.
    @Test func valuesAreWidenedAndEncryptedFieldsSealed() throws {
        var fields: RecordFields = ["score": .int64(2), "secret": .string("s")]
        let diff = try SchemaGrowth.plan("Note", known: Self.note, fields: &fields, encrypted: ["secret"], recordName: "r", in: Self.development)
        #expect(fields["score"] == .double(2))
        guard case .addField(_, let f)? = diff?.changes.first else { Issue.record("no field added"); return }
        #expect(f.type.encrypted && f.indexes.isEmpty)
    }

    /// The server makes a user's Users record in any environment, Production's included.
    @Test func theUsersTypeIsTheServersEverywhere() throws {
        var fields: RecordFields = [:]
        let diff = try SchemaGrowth.plan(UserRecord.recordType, known: RecordTypeSchema?.none, fields: &fields, makesUserRecord: true, recordName: "_u",
                                         in: Self.production)
        #expect(diff?.changes == [.addRecordType(UserRecord.schema)])
    }
}
