import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Schemas behave alike on SQLite and PostgreSQL: import, plan, deploy with history, refusals, roles and reset,
/// with each backend's own tables behind the declared indexes.
@Suite struct SchemaOnBothBackendsTests {
    static let first = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Place (
                "___recordID" REFERENCE QUERYABLE,
                name STRING QUERYABLE SORTABLE,
                notes STRING SEARCHABLE,
                tags LIST<STRING> QUERYABLE,
                visits LIST<INT64> QUERYABLE,
                spot LOCATION QUERYABLE,
                rating DOUBLE SORTABLE,
                photo ASSET,
                GRANT READ TO "_world", GRANT WRITE TO Editor
            );
        """

    @Test(arguments: Backend.allCases) func importDeployRolesAndReset(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Schemas")
            try store.createContainer(c)
            try store.lifecycle.importSchema(try SchemaParser.parse(Self.first), into: c)
            let dev = try store.environment(c, .development)
            #expect(try dev.schema.current().recordType(named: "Place")?.field(named: "notes")?.indexes == [.searchable])
            let plan = try store.lifecycle.deployPlan(c)
            #expect(plan.changes.map(\.description).sorted() == ["add record type Place (7 fields)", "add role Editor"])
            try store.lifecycle.deploy(c, by: "ada@example.com")
            let prod = try store.environment(c, .production)
            #expect(try prod.schema.current() == dev.schema.current())
            #expect(try prod.schema.deployments().map(\.deployedBy) == ["ada@example.com"])
            #expect(try store.lifecycle.deployPlan(c).isEmpty)

            // Change indexes, add and remove fields in Development: additive changes deploy, losing Production's field is refused.
            try store.lifecycle.importSchema(try SchemaParser.parse("""
                DEFINE SCHEMA
                    CREATE ROLE Editor;
                    RECORD TYPE Place (
                        "___recordID" REFERENCE QUERYABLE,
                        name STRING QUERYABLE SORTABLE SEARCHABLE,
                        notes STRING,
                        tags LIST<STRING> QUERYABLE,
                        visits LIST<INT64> QUERYABLE,
                        spot LOCATION QUERYABLE,
                        rating DOUBLE SORTABLE,
                        photo ASSET,
                        added TIMESTAMP QUERYABLE,
                        GRANT READ TO "_world", GRANT WRITE TO Editor
                    );
                """), into: c)
            #expect(try dev.schema.current().recordType(named: "Place")?.field(named: "added") != nil)
            let refused = try? store.lifecycle.importSchema(try SchemaParser.parse(Self.first.replacingOccurrences(of: "rating DOUBLE SORTABLE,", with: "")), into: c)
            #expect(refused == nil || refused?.refusals.isEmpty == false, "removing a field Production has is refused")
            #expect(try dev.schema.current().recordType(named: "Place")?.field(named: "rating") != nil)

            try dev.schema.assignRole("Editor", to: "_alice")
            #expect(try dev.schema.roles(of: "_alice") == ["Editor"] && dev.schema.members(of: "Editor") == ["_alice"])
            try dev.schema.removeRole("Editor", from: "_alice")
            #expect(try dev.schema.roles(of: "_alice").isEmpty)

            try store.lifecycle.resetDevelopment(c)
            #expect(try dev.schema.current() == prod.schema.current())
            if backend == .postgres, let url = (store.postgres?.url) {
                // Each environment is a schema holding a table per record type and PostgreSQL's own index tables.
                let schema = ServerStore.schemaName(c, .production)
                let tables = try TestPostgres.psql(url, "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = '\(schema)' AND table_name LIKE 't%'")
                #expect(tables == "t1,t1_f3_fts,t1_f4_l,t1_f5_l,t1_f6_geo", "\(tables)")
                try store.deleteContainer(c)
                #expect(try TestPostgres.psql(url, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '\(schema)'") == "0")
            }
        }
    }

    @Test(arguments: Backend.allCases) func zonesAreCreatedListedAndDeleted(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Zones")
            try store.createContainer(c)
            let env = try store.environment(c, .development)
            let alice = DatabaseID.privateDatabase(of: "_alice"), bob = DatabaseID.privateDatabase(of: "_bob")
            #expect(try env.zones.all(in: alice).map(\.zoneID.zoneName) == ["_defaultZone"])
            let made = try env.zones.createZone(ZoneID(zoneName: "Work"), in: alice)
            try env.zones.createZone(ZoneID(zoneName: "Archive"), in: alice)
            // Creating an existing zone returns it as it is (its token names the same point in its changes; the
            // token's text carries the second it was issued, so it is compared by what it reads back, not by text).
            let again = try env.zones.createZone(ZoneID(zoneName: "Work"), in: alice)
            #expect(again.zoneID == made.zoneID)
            #expect(try env.zones.zoneChanges(in: alice, zoneID: made.zoneID, since: again.syncToken).changed.isEmpty)
            #expect(try env.zones.all(in: alice).map(\.zoneID.zoneName) == ["_defaultZone", "Archive", "Work"])
            #expect(try env.zones.all(in: bob).map(\.zoneID.zoneName) == ["_defaultZone"], "another user's database has none of them")
            #expect(try env.zones.lookupZone(ZoneID(zoneName: "Work"), in: alice).zoneID.zoneName == "Work")
            expectError(.zoneNotFound) { try env.zones.lookupZone(ZoneID(zoneName: "Work"), in: bob) }
            expectError(.badRequest) { try env.zones.createZone(ZoneID(zoneName: "Custom"), in: .publicDatabase) }
            expectError(.badRequest) { try env.zones.deleteZone(.defaultZone, in: alice) }
            try env.zones.deleteZone(ZoneID(zoneName: "Work"), in: alice)
            expectError(.zoneNotFound) { try env.zones.deleteZone(ZoneID(zoneName: "Work"), in: alice) }
            #expect(try env.zones.all(in: alice).map(\.zoneID.zoneName) == ["_defaultZone", "Archive"])
            // Made again, a zone is a new zone: its old sync token does not carry over.
            #expect(try env.zones.createZone(ZoneID(zoneName: "Work"), in: alice).syncToken != made.syncToken)
        }
    }

    @Test(arguments: Backend.allCases) func subscriptionsAreSavedPerOwner(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Subs")
            try store.createContainer(c)
            let env = try store.environment(c, .development)
            func saying(_ text: String) -> String { #"{"subscriptionType":"database","notificationInfo":{"alertBody":"\#(text)"}}"# }
            func said(_ id: String, owner: String) throws -> String? {
                try env.subscriptions.subscription(id, in: .private, owner: owner).map { try JSON.parse(Data($0.utf8)) }?["notificationInfo"]?["alertBody"]?.string
            }
            try env.subscriptions.saveSubscription("s1", document: saying("1"), in: .private, owner: "_alice")
            try env.subscriptions.saveSubscription("s1", document: saying("3"), in: .private, owner: "_alice")
            #expect(try said("s1", owner: "_alice") == "3", "saving a taken ID replaces it")
            expectError(.notFound) { try env.subscriptions.saveSubscription("nope", document: saying("0"), in: .private, owner: "_alice", as: .update) }
            try env.subscriptions.saveSubscription("s1", document: saying("2"), in: .private, owner: "_alice", as: .update)
            #expect(try said("s1", owner: "_alice") == "2")
            #expect(try env.subscriptions.subscription("s1", in: .private, owner: "_bob") == nil, "another user's subscription is not Bob's")
            #expect(try env.subscriptions.all(in: .private, owner: "_alice").map(\.id) == ["s1"] && env.subscriptions.allSubscriptions().count == 1)
            try env.subscriptions.deleteSubscription("s1", in: .private, owner: "_alice")
            expectError(.notFound) { try env.subscriptions.deleteSubscription("s1", in: .private, owner: "_alice") }
        }
    }

    @Test(arguments: Backend.allCases) func webhooksAndTheirDeliveryQueue(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Hooks")
            try store.createContainer(c)
            let env = try store.environment(c, .production)
            let (hook, secret) = try env.webhooks.addWebhook(url: "https://hooks.example.com/in", recordTypes: ["Note"])
            #expect(try secret.count == 64 && env.webhooks.all() == [hook] && env.webhooks.hasWebhooks())
            try env.webhooks.setWebhookEnabled(id: hook.id, false)
            #expect(try env.webhooks.all().first?.enabled == false)
            try env.webhooks.setWebhookEnabled(id: hook.id, true)
            expectError(.notFound) { try env.webhooks.setWebhookEnabled(id: hook.id + 1, true) }
            #expect(try env.webhooks.dueWebhookDeliveries().isEmpty)
            try env.webhooks.removeWebhook(id: hook.id)
            expectError(.notFound) { try env.webhooks.removeWebhook(id: hook.id) }
            #expect(try env.webhooks.all().isEmpty)
        }
    }
}

/// ENCRYPTED fields: the app encrypts their values, so the server cannot index them and never hands them to anyone
/// but the record's readers through the API.
@Suite struct EncryptedFieldTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Diary (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE,
                secret ENCRYPTED STRING,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
        """

    @Test func indexesOnEncryptedFieldsAreRefusedWithAClearMessage() throws {
        do {
            _ = try SchemaParser.parse(Self.schema.replacingOccurrences(of: "secret ENCRYPTED STRING,", with: "secret ENCRYPTED STRING QUERYABLE,"))
            Issue.record("an index on an encrypted field was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains("ENCRYPTED") && text.contains("secret") && text.contains("QUERYABLE"), "\(text)")
        }
        try SchemaParser.parse(Self.schema).validate()
    }

    @Test(arguments: Backend.allCases) func encryptedValuesStayOutOfWebhooksAndExports(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Encrypted")
            try store.createContainer(c)
            _ = try store.lifecycle.importSchema(try SchemaParser.parse(Self.schema), into: c)
            let env = try store.environment(c, .development)
            _ = try env.webhooks.addWebhook(url: "https://hooks.example.com/in", recordTypes: ["Diary"])
            let alice = RequestActor(userRecordName: "_" + String(repeating: "e", count: 32))
            let results = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "d1", recordType: "Diary",
                                                                                   fields: ["title": .string("Monday"), "secret": .string("c2VjcmV0IGNpcGhlcnRleHQ=")]))],
                                         in: .publicDatabase, actor: alice)
            #expect(results.first?.error == nil)
            // Stored as given, and read back through the API unchanged.
            #expect(try env.records.lookup(["d1"], in: .publicDatabase)[0].get().fields["secret"] == .string("c2VjcmV0IGNpcGhlcnRleHQ="))
            let payload = try #require(env.webhooks.dueWebhookDeliveries().first?.payload)
            #expect(payload.contains("Monday") && !payload.contains("c2VjcmV0") && !payload.contains("\"secret\""))
        }
    }
}
