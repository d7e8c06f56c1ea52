import Testing
@testable import StratusModel

/// Apple's Department/Employee sample from *Integrating a Text-Based Schema into Your Workflow*.
let appleSample = """
DEFINE SCHEMA

    CREATE ROLE DeptManager;

    RECORD TYPE Department (
        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
        "___createdBy"  REFERENCE,
        "___etag"       STRING,
        "___modTime"    TIMESTAMP,
        "___modifiedBy" REFERENCE,
        "___recordID"   REFERENCE QUERYABLE,
        name            STRING,
        phone           LIST<STRING>,
        employees       LIST<REFERENCE>,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world",
        GRANT WRITE, CREATE, READ TO DeptManager
    );

    RECORD TYPE Employee (
        "___createTime" TIMESTAMP,
        "___recordID"   REFERENCE QUERYABLE,
        firstName       STRING QUERYABLE SORTABLE SEARCHABLE,  // indexes for search
        lastName        STRING QUERYABLE,
        photo           ASSET,
        hireDate        TIMESTAMP SORTABLE,
        salary          ENCRYPTED DOUBLE,
        level           NUMBER PREFERRED AS INT64,
        office          LOCATION QUERYABLE,
        department      REFERENCE QUERYABLE,
        /* block comment */
        "grant"         STRING,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
"""

@Suite struct SchemaLanguageTests {
    @Test func parsesApplesSample() throws {
        let schema = try SchemaParser.parse(appleSample)
        #expect(schema.roles == ["DeptManager"])
        let dept = try #require(schema.recordType(named: "Department"))
        #expect(dept.field(named: "phone")?.type == .list(.string))
        #expect(dept.field(named: "___createTime")?.indexes == [.queryable, .sortable])
        #expect(dept.grants["DeptManager"] == .all)
        #expect(dept.grants[SecurityRole.world] == .read)
        let emp = try #require(schema.recordType(named: "Employee"))
        #expect(emp.field(named: "firstName")?.indexes == [.queryable, .sortable, .searchable])
        #expect(emp.field(named: "salary")?.type.encrypted == true)
        #expect(emp.field(named: "level")?.type.scalar == .int64)
        #expect(emp.field(named: "grant")?.type == FieldType(.string))
    }

    @Test func printThenParseIsStable() throws {
        let schema = try SchemaParser.parse(appleSample)
        let printed = SchemaPrinter.print(schema)
        let reparsed = try SchemaParser.parse(printed)
        #expect(reparsed == schema)
        #expect(SchemaPrinter.print(reparsed) == printed)
        #expect(printed.contains("salary          ENCRYPTED DOUBLE"))
        #expect(printed.contains("level           NUMBER PREFERRED AS INT64"))
        #expect(printed.contains("\"grant\"         STRING"))
    }

    @Test(arguments: [
        ("DEFINE SCHEMA\n  RECORD TYPE A (\n    x STRNG\n  );", 3, 7, "expected a data type"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( grant STRING );", 2, 23, "double quotes"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( queryable STRING );", 2, 17, "reserved word"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING", 1, 39, "expected ')'"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( x STRING, x INT64 );", 2, 27, "declared twice"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( x LIST<LIST<STRING>> );", 2, 36, "lists cannot contain lists"),
        ("DEFINE SCHEMA\nRECORD TYPE A ( x STRING ) ;\nRECORD TYPE A ( y STRING );", 3, 13, "declared twice"),
        ("DEFINE SCHEME", 1, 8, "expected SCHEMA"),
        ("DEFINE SCHEMA /* open", 1, 15, "unterminated comment"),
        ("DEFINE SCHEMA RECORD TYPE A ( x STRING, GRANT READ TO nobody );", 1, 55, "not declared"),
    ])
    func reportsLineAndColumn(text: String, line: Int, column: Int, message: String) {
        do {
            _ = try SchemaParser.parse(text)
            Issue.record("parsed invalid schema: \(text)")
        } catch {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func rejectsIndexesAFieldTypeCannotHave() {
        #expect(throws: SchemaSyntaxError.self) { try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE A ( b BYTES QUERYABLE );") }
        #expect(throws: SchemaSyntaxError.self) { try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE A ( b LIST<INT64> SEARCHABLE );") }
    }
}
