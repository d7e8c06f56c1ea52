import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Security roles enforced by the store on the public database, for every built-in and a custom role.
@Suite struct AccessTests {
    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Standard ( t STRING, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world" );
            RECORD TYPE Diary ( t STRING, GRANT READ, WRITE TO "_creator", GRANT CREATE TO "_icloud" );
            RECORD TYPE Board ( t STRING, GRANT READ TO "_icloud", GRANT CREATE, WRITE TO Editor );
        """
    let alice = Caller(userRecordName: Fixture.alice.userRecordName)
    let bob = Caller(userRecordName: Fixture.bob.userRecordName)
    static let eveName = "_" + String(repeating: "e", count: 32)

    func fixture(_ backend: Backend) throws -> Fixture? {
        guard let f = try Fixture.make(backend, schema: Self.schema) else { return nil }
        try f.dev.schema.assignRole("Editor", to: Self.eveName)
        // Seed one record of each type, created by alice, bypassing permissions as an admin would.
        for type in ["Standard", "Diary", "Board"] {
            _ = try f.save([StoredRecord(recordName: "\(type)-a", recordType: type, fields: ["t": .string("x")])], actor: Fixture.alice)
        }
        return f
    }

    private func eve(_ f: Fixture) throws -> Caller { Caller(userRecordName: Self.eveName, roles: try f.dev.schema.roles(of: Self.eveName)) }

    private func can(_ f: Fixture, _ p: Permission, _ type: String, as caller: Caller, actor: RequestActor) throws -> Bool {
        switch p {
        case .read:
            let r = try f.dev.records.lookup(["\(type)-a"], in: f.pub, caller: caller)[0]
            let viaQuery = try f.dev.records.query(Query(recordType: type), in: f.pub, caller: caller).records.contains { $0.recordName == "\(type)-a" }
            // The lookup the API writes from the row (the lookup above taught the store the type): never a record
            // the caller may not read, and the record itself when it may.
            var sink = StoredRecordSink()
            let streamed = try f.dev.records.lookup(["\(type)-a"], in: f.pub, caller: caller, streamingInto: &sink)
            if case .success = r {
                #expect(viaQuery)
                #expect(streamed && sink.records.map(\.recordName) == ["\(type)-a"])
                return true
            }
            #expect(!viaQuery)
            #expect(!streamed)
            return false
        case .create:
            let r = try f.dev.records.modify([RecordOperation(.create, StoredRecord(recordName: "new-\(UUID())", recordType: type))], in: f.pub, actor: actor, caller: caller)[0]
            if let e = r.error { #expect(e.code == .accessDenied); return false }
            return true
        default:
            let r = try f.dev.records.modify([RecordOperation(.forceUpdate, StoredRecord(recordName: "\(type)-a", recordType: type, fields: ["t": .string("y")]))],
                                     in: f.pub, actor: actor, caller: caller)[0]
            if let e = r.error { #expect(e.code == .accessDenied); return false }
            return true
        }
    }

    @Test(arguments: Backend.allCases) func roleMatrix(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try fixture(backend) else { return }
            let eveActor = RequestActor(userRecordName: Self.eveName)
            let callers: [(String, Caller, RequestActor)] = [("anonymous", .anonymous, RequestActor(userRecordName: "_anon")), ("creator", alice, Fixture.alice),
                                                       ("other", bob, Fixture.bob), ("editor", try eve(f), eveActor)]
            // Expected [READ, CREATE, WRITE] per type and caller.
            let expected: [String: [String: [Bool]]] = [
                "Standard": ["anonymous": [true, false, false], "creator": [true, true, true], "other": [true, true, false], "editor": [true, true, false]],
                "Diary": ["anonymous": [false, false, false], "creator": [true, true, true], "other": [false, true, false], "editor": [false, true, false]],
                "Board": ["anonymous": [false, false, false], "creator": [true, false, false], "other": [true, false, false], "editor": [true, true, true]],
            ]
            for type in ["Standard", "Diary", "Board"] {
                for (label, caller, actor) in callers {
                    let got = try [Permission.read, .create, .write].map { try can(f, $0, type, as: caller, actor: actor) }
                    #expect(got == expected[type]![label]!, "\(type) as \(label): [READ, CREATE, WRITE] = \(got)")
                }
            }
        }
    }

    @Test(arguments: Backend.allCases) func deniedOperationsFailAloneAndDeleteNeedsWrite(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try fixture(backend) else { return }
            let results = try f.dev.records.modify([
                RecordOperation(.create, StoredRecord(recordName: "mine", recordType: "Standard")),
                RecordOperation(.forceDelete, StoredRecord(recordName: "Standard-a", recordType: "")),
                RecordOperation(.create, StoredRecord(recordName: "board", recordType: "Board")),
            ], in: f.pub, actor: Fixture.bob, caller: bob)
            #expect(results.map(\.code) == [nil, .accessDenied, .accessDenied])
            #expect((try? f.dev.records.lookup(["Standard-a"], in: f.pub)[0].get()) != nil)
            // Private databases are the owner's alone: roles do not apply there, nor reach into them.
            _ = try f.dev.records.modify([RecordOperation(.create, StoredRecord(recordName: "p", recordType: "Diary"))], in: f.alicePrivate,
                                 actor: Fixture.alice, caller: alice)
            #expect(try f.dev.records.lookup(["p"], in: .privateDatabase(of: Fixture.bob.userRecordName), caller: bob)[0].error?.code == .notFound)
        }
    }

    @Test(arguments: Backend.allCases) func roleMembership(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try fixture(backend) else { return }
            #expect(try f.dev.schema.roles(of: Self.eveName) == ["Editor"])
            #expect(try f.dev.schema.members(of: "Editor") == [Self.eveName])
            expectError(.badRequest) { try f.dev.schema.assignRole("Nope", to: Self.eveName) }
            try f.dev.schema.removeRole("Editor", from: Self.eveName)
            #expect(try f.dev.schema.roles(of: Self.eveName).isEmpty)
        }
    }
}

extension Result where Failure == StratusError {
    var error: StratusError? { if case .failure(let e) = self { e } else { nil } }
}
