import Foundation
import Testing
@testable import StratusModel

@Suite struct IdentifierTests {
    @Test(arguments: ["iCloud.com.example.Notes", "iCloud.a", "iCloud.com.my-app.v2_beta"])
    func acceptsContainerIDs(_ s: String) throws { #expect(try ContainerID(s).rawValue == s) }

    @Test(arguments: ["", "com.example", "iCloud.", "iCloud..x", "iCloud.a/b", "iCloud.a b", "iCloud.../etc", "iCloud.x.", String(repeating: "a", count: 300)])
    func rejectsContainerIDs(_ s: String) {
        #expect(throws: StratusError.self) { try ContainerID(s) }
    }

    @Test func zoneNames() throws {
        try ZoneID.validate(zoneName: "_defaultZone")
        try ZoneID.validate(zoneName: "Photos-2024.v1")
        for bad in ["", "_private", "has space", "ü", String(repeating: "z", count: 256)] {
            #expect(throws: StratusError.self, "\(bad)") { try ZoneID.validate(zoneName: bad) }
        }
    }

    @Test func recordNames() throws {
        try Names.validate(recordName: "E3F1A2B4-0000-4000-8000-000000000000")
        try Names.validate(recordName: "note: <b>ünïcode</b>")
        #expect(throws: StratusError.self) { try Names.validate(recordName: "") }
        #expect(throws: StratusError.self) { try Names.validate(recordName: "a\u{0}b") }
        #expect(throws: StratusError.self) { try Names.validate(recordName: String(repeating: "x", count: 256)) }
    }
}

@Suite struct FieldValueTests {
    @Test func validatesAgainstDeclaredType() throws {
        try FieldValue.string("x").validate(as: FieldType(.string), field: "f")
        try FieldValue.list(.int64, [.int64(1), .int64(2)]).validate(as: .list(.int64), field: "f")
        try FieldValue.list(nil, []).validate(as: .list(.location), field: "f")
        #expect(throws: StratusError.self) { try FieldValue.string("x").validate(as: FieldType(.int64), field: "f") }
        #expect(throws: StratusError.self) { try FieldValue.list(.int64, [.string("x")]).validate(as: .list(.int64), field: "f") }
        #expect(throws: StratusError.self) { try FieldValue.double(.nan).validate(as: FieldType(.double), field: "f") }
        #expect(throws: StratusError.self) {
            try FieldValue.location(Location(latitude: 91, longitude: 0)).validate(as: FieldType(.location), field: "f")
        }
        #expect(throws: StratusError.self) { try FieldValue.string("x").validate(as: .list(.string), field: "f") }
    }

    @Test func sizeCountsDataButNotAssetContent() {
        let big = FieldValue.bytes(Data(count: 600_000))
        let asset = FieldValue.asset(AssetValue(fileChecksum: "abc", size: 40_000_000))
        #expect(big.storageSize == 600_000)
        #expect(asset.storageSize < 100)
    }

    @Test func distanceIsGreatCircle() {
        let paris = Location(latitude: 48.8566, longitude: 2.3522), london = Location(latitude: 51.5074, longitude: -0.1278)
        #expect(abs(paris.distance(to: london) - 343_500) < 2_000)
    }
}

@Suite struct SchemaDiffTests {
    @Test func additiveChangesAreAllowedAndRemovalsOfProductionRefused() throws {
        let prod = try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE A ( x STRING QUERYABLE, y INT64 );")
        let dev = try SchemaParser.parse("DEFINE SCHEMA CREATE ROLE R; RECORD TYPE A ( x STRING, z DOUBLE, GRANT READ TO R ); RECORD TYPE B ( n STRING );")
        let diff = SchemaDiff.between(prod, dev)
        #expect(diff.changes.contains(.addRole("R")))
        #expect(diff.changes.contains(.addField(recordType: "A", FieldSchema(name: "z", type: FieldType(.double)))))
        #expect(diff.changes.contains(.changeIndexes(recordType: "A", field: "x", from: .queryable, to: [])))
        #expect(diff.changes.contains(.removeField(recordType: "A", field: "y")))
        #expect(diff.refusals == ["field A.y exists in Production and cannot be removed"])
        #expect(throws: StratusError.self) { try diff.validate() }
    }

    @Test func typeChangeIsRefused() throws {
        let a = try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE A ( x STRING );")
        let b = try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE A ( x INT64 );")
        let diff = SchemaDiff.between(a, b)
        #expect(diff.refusals.count == 1)
        #expect(diff.refusals[0].contains("cannot become INT64"))
    }
}

@Suite struct SecurityPolicyTests {
    let alice = Caller(userRecordName: "_alice"), bob = Caller(userRecordName: "_bob"), editor = Caller(userRecordName: "_eve", roles: ["Editor"])

    /// Every built-in and custom role × CREATE/READ/WRITE × own/other's record, on CloudKit's default grants plus
    /// WRITE for a custom role.
    @Test func defaultGrantsMatrix() {
        var grants = SecurityRole.defaultGrants
        grants["Editor"] = .write
        let cases: [(Permission, Caller, String?, Bool)] = [
            (.read, .anonymous, "_alice", true), (.read, alice, "_bob", true),
            (.create, .anonymous, nil, false), (.create, alice, nil, true), (.create, editor, nil, true),
            (.write, .anonymous, "_alice", false), (.write, alice, "_alice", true), (.write, bob, "_alice", false),
            (.write, editor, "_alice", true),
        ]
        for (p, caller, creator, expected) in cases {
            #expect(SecurityPolicy.allows(p, grants: grants, caller: caller, creator: creator) == expected, "\(p.names) \(caller) \(creator ?? "-")")
        }
    }

    @Test func creatorOnlyReading() {
        let grants: [String: Permission] = [SecurityRole.creator: [.read, .write], SecurityRole.authenticated: .create]
        #expect(SecurityPolicy.allows(.read, grants: grants, caller: alice, creator: "_alice"))
        #expect(!SecurityPolicy.allows(.read, grants: grants, caller: bob, creator: "_alice"))
        #expect(!SecurityPolicy.allows(.read, grants: grants, caller: .anonymous, creator: "_alice"))
        #expect(!SecurityPolicy.allows(.read, grants: [:], caller: editor, creator: "_eve") )
    }
}
