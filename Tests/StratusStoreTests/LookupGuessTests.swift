import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// A lookup reads the records of the type it guesses (the one lookups found last) in its directory statement:
/// whatever the guess, and however old the catalog it was made from, the answer is the database's.
@Suite struct LookupGuessTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note (title STRING, body STRING, stars INT64);
            RECORD TYPE Task (title STRING, done INT64, tags LIST<STRING>);
        """

    @Test(arguments: Backend.allCases) func mixedTypesComeBackInTheOrderAskedWhateverTheGuess(_ backend: Backend) async throws {
        try await Fixture.with(backend, schema: Self.schema) { f throws in
            try f.save([note("n1", ["title": .string("first"), "stars": .int64(3)]), note("n2", ["body": .string("second")]),
                        StoredRecord(recordName: "t1", recordType: "Task", fields: ["title": .string("do"), "tags": .list(.string, [.string("a")])])])
            // Each order a second time: the first of each lookup moves the guess to its type.
            for names in [["n1"], ["t1"], ["n1", "t1", "gone", "n2"], ["t1", "n2"], ["gone"], ["n2", "n1"], ["t1"]] {
                for _ in 0..<2 {
                    let results = try f.dev.records.lookup(names, in: f.pub)
                    #expect(results.count == names.count)
                    for (name, result) in zip(names, results) {
                        switch (name, result) {
                        case ("gone", .failure(let e)): #expect(e.code == .notFound)
                        case ("n1", .success(let r)): #expect(r.recordType == "Note" && r.fields == ["title": .string("first"), "stars": .int64(3)])
                        case ("n2", .success(let r)): #expect(r.fields == ["body": .string("second")] && r.recordChangeTag?.isEmpty == false)
                        case ("t1", .success(let r)): #expect(r.recordType == "Task" && r.fields["tags"] == .list(.string, [.string("a")]))
                        default: Issue.record("\(names): \(name) came back as \(result)")
                        }
                    }
                }
            }
            // A name deleted and made again as the other type is found as that type.
            #expect(try f.dev.records.lookup(["n1"], in: f.pub)[0].get().recordType == "Note")
            _ = try f.dev.records.modify([RecordOperation(.forceDelete, note("n1"))], in: f.pub, actor: Fixture.alice)
            try f.save([StoredRecord(recordName: "n1", recordType: "Task", fields: ["done": .int64(1)])])
            #expect(try f.dev.records.lookup(["n1"], in: f.pub)[0].get().fields == ["done": .int64(1)])
            #expect(try f.dev.records.lookup(["n1"], in: f.pub)[0].get().recordType == "Task")
        }
    }

    /// Another server changed the schema and this one's catalog is older: a guess that names a column gone, or
    /// misses one that came, still answers with what the database holds.
    @Test(arguments: Backend.allCases) func aGuessFromAnOlderCatalogStillAnswersWithTheDatabasesRecord(_ backend: Backend) async throws {
        try await Fixture.with(backend, schema: Self.schema) { f throws in
            try f.save([note("n1", ["title": .string("kept"), "body": .string("goes")])])
            #expect(try f.dev.records.lookup(["n1"], in: f.pub)[0].get().fields["body"] == .string("goes"))
            #expect(try f.dev.records.lookup(["n1"], in: f.pub)[0].get().fields["body"] == .string("goes"))   // now guessed
            let old = f.dev.core.cachedCatalog.read { $0 }

            // `body` is dropped with its column, `color` added and written.
            try f.store.lifecycle.importSchema(try SchemaParser.parse(Self.schema.replacingOccurrences(of: "body STRING", with: "color STRING")), into: f.container)
            _ = try f.save([note("n1", ["color": .string("red")])], op: .forceUpdate)
            f.dev.core.cachedCatalog.write { $0 = old }   // as a server that has not heard of the change yet
            let r = try f.dev.records.lookup(["n1"], in: f.pub)[0].get()
            #expect(r.fields == ["title": .string("kept"), "color": .string("red")])

            // The other way: a column added since the catalog this server holds.
            let current = f.dev.core.cachedCatalog.read { $0 }
            #expect(current.generation > old.generation)
            try f.store.lifecycle.importSchema(try SchemaParser.parse(Self.schema.replacingOccurrences(of: "body STRING", with: "color STRING, size INT64")), into: f.container)
            _ = try f.save([note("n1", ["size": .int64(9)])], op: .forceUpdate)
            f.dev.core.cachedCatalog.write { $0 = current }
            #expect(try f.dev.records.lookup(["n1"], in: f.pub)[0].get().fields == ["title": .string("kept"), "color": .string("red"), "size": .int64(9)])
        }
    }
}
