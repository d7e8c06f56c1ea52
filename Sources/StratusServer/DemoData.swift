import Foundation
import StratusModel
import StratusStore

/// A living container for newcomers, where every console page has something real to show: public record types with
/// a few thousand records, three users with private zones holding every field type, shares, subscriptions with
/// their notifications, a webhook whose receiver is down, an automatic index, a deploy, and a day of (generated)
/// telemetry and request logs. Installed once; a data directory that already has it is left alone.
public enum DemoData {
    public static let container = try! ContainerID("iCloud.com.example.Demo")
    public static let demoUser = "_" + String(repeating: "d", count: 32)

    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Editor;

            RECORD TYPE Note (
                "___recordID"   REFERENCE QUERYABLE,
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___modTime"    TIMESTAMP QUERYABLE SORTABLE,
                title           STRING QUERYABLE SORTABLE SEARCHABLE,
                body            STRING SEARCHABLE,
                tags            LIST<STRING> QUERYABLE,
                priority        INT64 QUERYABLE SORTABLE,
                due             TIMESTAMP QUERYABLE SORTABLE,
                place           REFERENCE QUERYABLE,
                GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world",
                GRANT WRITE TO Editor
            );

            RECORD TYPE Place (
                "___recordID" REFERENCE QUERYABLE,
                name          STRING QUERYABLE SORTABLE SEARCHABLE,
                location      LOCATION QUERYABLE SORTABLE,
                rating        DOUBLE QUERYABLE SORTABLE,
                GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world"
            );

            RECORD TYPE Trip (
                "___recordID"   REFERENCE QUERYABLE,
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                "___modTime"    TIMESTAMP QUERYABLE SORTABLE,
                title           STRING QUERYABLE SORTABLE SEARCHABLE,
                starts          TIMESTAMP QUERYABLE SORTABLE,
                nights          INT64 QUERYABLE SORTABLE,
                budget          DOUBLE QUERYABLE SORTABLE,
                destination     LOCATION QUERYABLE,
                cover           ASSET,
                ticket          BYTES,
                place           REFERENCE QUERYABLE,
                packing         LIST<STRING> QUERYABLE,
                nightlyRates    LIST<DOUBLE>,
                waypoints       LIST<LOCATION>,
                GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world"
            );

            RECORD TYPE Stop (
                "___recordID" REFERENCE QUERYABLE,
                name          STRING QUERYABLE SORTABLE,
                day           INT64 QUERYABLE SORTABLE,
                at            LOCATION QUERYABLE,
                GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world"
            );

            RECORD TYPE Person (
                "___recordID" REFERENCE QUERYABLE,
                name          STRING QUERYABLE SORTABLE,
                email         STRING QUERYABLE,
                nicknames     LIST<STRING>,
                GRANT WRITE TO "_creator", GRANT READ TO "_icloud"
            );
        """

    static let cities: [(String, Double, Double)] = [
        ("Paris", 48.8566, 2.3522), ("Lisbon", 38.7223, -9.1393), ("Berlin", 52.52, 13.405), ("Tokyo", 35.6762,
                139.6503),
        ("Cupertino", 37.3230, -122.0322), ("Nairobi", -1.2921, 36.8219), ("Lima", -12.0464, -77.0428), ("Oslo",
                59.9139, 10.7522),
    ]
    static let words = ["groceries", "meeting", "draft", "ideas", "travel", "garden", "invoice", "birthday", "review",
                        "music",
                        "books", "repair", "call", "plan", "sketch", "recipe"]

    /// Installs the demo when the data directory has none, and returns the secrets to print once; nil when it was
    /// there already.
    @discardableResult
    public static func install(into store: ServerStore) throws -> DemoInstall? {
        if try store.containerExists(container) { return nil }
        try store.createContainer(container)
        do { return try fill(store) } catch {
            // All or nothing: a demo half made would be taken for a whole one on the next start.
            try? store.deleteContainer(container)
            throw error
        }
    }

    static func fill(_ store: ServerStore) throws -> DemoInstall {
        try store.lifecycle.importSchema(try SchemaParser.parse(schema), into: container)
        try store.lifecycle.deploy(container, by: "demo")
        let actor = RequestActor(userRecordName: demoUser, deviceID: "demo")
        for env in [ContainerEnvironment.development, .production] {
            let store = try store.environment(container, env)
            let count = env == .development ? 2_500 : 300
            var rng = SystemRandomNumberGenerator()
            let places = cities.enumerated().map { i, c in
                StoredRecord(recordName: "place-\(i)", recordType: "Place", fields: [
                    "name": .string(c.0), "location": .location(Location(latitude: c.1, longitude: c.2)),
                    "rating": .double(Double(Int.random(in: 20...50, using: &rng)) / 10),
                ])
            }
            _ = try store.records.modify(places.map { RecordOperation(.create, $0) }, in: .publicDatabase, actor: actor)
            let people = (0..<40).map { i in
                StoredRecord(recordName: "person-\(i)", recordType: "Person", fields: [
                    "name": .string("Person \(i)"), "email": .string("person\(i)@example.com"),
                    "nicknames": .list(.string, [.string("p\(i)")]),
                ])
            }
            _ = try store.records.modify(people.map { RecordOperation(.create, $0) }, in: .publicDatabase, actor: actor)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let notes = (0..<count).map { i -> StoredRecord in
                let w1 = words[i % words.count], w2 = words[(i * 7 + 3) % words.count]
                return StoredRecord(recordName: String(format: "note-%05d", i), recordType: "Note", fields: [
                    "title": .string("\(w1.capitalized) \(i)"), "body": .string("About \(w1) and \(w2), note number \(i)."),
                    "tags": .list(.string, [.string(w1), .string(w2)]), "priority": .int64(Int64(i % 5)),
                    "due": .timestamp(Timestamp(millisSince1970: now + Int64(i) * 3_600_000)), "place": .reference(Reference(recordName: "place-\(i % cities.count)")),
                ])
            }
            for chunk in stride(from: 0, to: notes.count, by: 200) {
                _ = try store.records.modify(notes[chunk..<min(chunk + 200, notes.count)].map { RecordOperation(.create,
                        $0) },
                                     in: .publicDatabase, actor: actor)
            }
        }
        let users = try installPeople(into: store)
        let origin = "http://localhost:3000"
        let (_, secret) = try store.credentials.createAPIToken(container: container, environment: .development,
                                                               name: "Demo web app", allowedOrigins: [origin])
        _ = try store.credentials.createAPIToken(container: container, environment: .production,
                                                 name: "Demo web app (Production)",
                allowedOrigins: ["https://app.example.com"])
        // A fault scoped to one record no one has: saving a Trip named "fault-demo" is throttled, three times, so an
        // app
        // can try its retry logic; nothing else in the demo meets it.
        let now = WallClock.nowMillis()
        for env in [ContainerEnvironment.development, .production] {
            var fault = Fault(container: container, environment: env,
                              operation: CloudKitOperation.recordsModify.rawValue, kind: .throttled, remaining: 3,
                    probability: nil,
                              retryAfter: 5, createdAt: now, expiresAt: now + 86_400_000)
            fault.recordType = "Trip"
            fault.recordName = "fault-demo"
            _ = try store.faults.addFault(fault, allowProduction: true)   // the demo's own data, made by the server itself
        }
        return DemoInstall(users: users, apiToken: secret, apiTokenOrigin: origin)
    }
}
