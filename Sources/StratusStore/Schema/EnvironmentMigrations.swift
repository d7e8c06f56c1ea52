import Foundation
import GRDB
import StratusModel

/// The fixed tables of one container-environment file. Record types get tables of their own at run time
/// (see `SchemaStorage`); these hold zones, the schema catalog, the change log and asset references.
/// A shipped migration is never modified: add a new one.
enum EnvironmentMigrations {
    /// Columns the migrations read from tables as they were then.
    enum LegacyColumn: String, TableColumn {
        case spec, token, name, owner, bytes
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                -- AUTOINCREMENT: a zone deleted and created again must get a new id, so its old sync tokens fail.
                CREATE TABLE zones(
                    id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL,
                    atomic INTEGER NOT NULL, change_seq INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL);
                \(catalogTables)
                -- One row per record that exists or was deleted: the directory of names and the change feed.
                CREATE TABLE record_log(
                    zone_id INTEGER NOT NULL, seq INTEGER NOT NULL, record_name TEXT NOT NULL,
                    type_id INTEGER NOT NULL, record_id INTEGER NOT NULL, deleted INTEGER NOT NULL,
                    PRIMARY KEY(zone_id, seq)) WITHOUT ROWID;
                CREATE UNIQUE INDEX record_log_name ON record_log(zone_id, record_name);
                -- DELETE_SELF references, looked up from the target when it is deleted.
                CREATE TABLE cascade_refs(target_zone INTEGER NOT NULL, target_name TEXT NOT NULL,
                    source_type INTEGER NOT NULL, source_id INTEGER NOT NULL);
                CREATE INDEX cascade_refs_target ON cascade_refs(target_zone, target_name);
                CREATE INDEX cascade_refs_source ON cascade_refs(source_type, source_id);
                CREATE TABLE assets(checksum TEXT PRIMARY KEY, size INTEGER NOT NULL, refs INTEGER NOT NULL,
                    created_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE deployments(id INTEGER PRIMARY KEY, deployed_at INTEGER NOT NULL, deployed_by TEXT NOT NULL,
                    changes TEXT NOT NULL);
                INSERT INTO meta(key, value) VALUES ('schema_generation', 1), ('next_seq', 1);
                """)
        }
        m.registerMigration("v2-role-members") { db in
            // Custom roles assigned to users (the console's checkboxes); roles themselves are schema.
            try db.execute(sql: "CREATE TABLE role_members(role TEXT NOT NULL, user TEXT NOT NULL, PRIMARY KEY(role, user)) WITHOUT ROWID")
        }
        m.registerMigration("v3-subscriptions") { db in
            // Subscriptions as the documents clients sent (normalized by the API); notifications come later.
            try db.execute(sql: """
                CREATE TABLE subscriptions(scope TEXT NOT NULL, owner TEXT NOT NULL, subscription_id TEXT NOT NULL, document TEXT NOT NULL,
                    created_at INTEGER NOT NULL, PRIMARY KEY(scope, owner, subscription_id)) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v4-record-counts") { db in
            // Live records per zone and type, kept by the writer in the same transaction as the records, so that
            // the console can show counts without COUNT(*) over big tables on every view.
            try db.execute(sql: """
                CREATE TABLE record_counts(zone_id INTEGER NOT NULL, type_id INTEGER NOT NULL, count INTEGER NOT NULL,
                    PRIMARY KEY(zone_id, type_id)) WITHOUT ROWID;
                INSERT INTO record_counts(zone_id, type_id, count)
                    SELECT zone_id, type_id, COUNT(*) FROM record_log WHERE deleted = 0 GROUP BY zone_id, type_id;
                """)
        }
        m.registerMigration("v5-notifications") { db in
            // Subscriptions carry their parsed form (`spec`, JSON of `Subscription`) for matching. Notifications are an
            // outbox: the write transaction that changes a record appends what its change triggers, so a crash between
            // commit and delivery loses nothing. Courier tokens remember how far each token has been answered.
            try db.execute(sql: """
                ALTER TABLE subscriptions ADD COLUMN spec TEXT;
                CREATE TABLE notifications(id INTEGER PRIMARY KEY, nid TEXT NOT NULL UNIQUE, user TEXT NOT NULL, subscription_id TEXT NOT NULL,
                    scope TEXT NOT NULL, record_name TEXT, reason INTEGER, created_at INTEGER NOT NULL, payload TEXT NOT NULL);
                CREATE INDEX notifications_user ON notifications(user, id);
                CREATE INDEX notifications_age ON notifications(created_at);
                CREATE TABLE courier_tokens(token TEXT PRIMARY KEY, user TEXT NOT NULL, created_at INTEGER NOT NULL,
                    delivered_through INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v6-webhooks") { db in
            // Webhooks and their deliveries, written by the same transaction as the change they report (an outbox).
            // The signing secret is kept as it is: the server needs it to sign every delivery.
            try db.execute(sql: webhookTables)
        }
        m.registerMigration("v7-notification-batches") { db in
            // One row per write transaction instead of one per notification (see NotificationBatch). Positions
            // become `batch << 20 | index`: each old notification is a batch of one, and the positions courier
            // tokens and the retention remember move with them.
            try db.execute(sql: """
                CREATE TABLE notification_batches(id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, users TEXT NOT NULL, entries TEXT NOT NULL);
                CREATE INDEX notification_batches_age ON notification_batches(created_at);
                """)
            for row in try Row.fetchAll(db,
                                        sql: "SELECT id, user, subscription_id, scope, record_name, reason, created_at, payload FROM notifications ORDER BY id") {
                // The log keeps `aps` and the kind's member; the rest is put back when a notification is read.
                let object = (try? JSON.parse(Data((row["payload"] as String).utf8)))?.object ?? [:]
                let ck = object["ck"]?.object ?? [:]
                let member = ["fet", "met",
                              "qry"].first { ck[$0] != nil }.map { "\"\($0)\":" + ck[$0]!.serialized } ?? ""
                let heading = NotificationBatch.Heading(user: row["user"], scope: row["scope"],
                                                        recordName: row["record_name"], reason: row["reason"],
                                                        aps: (object["aps"] ?? .object([:])).serialized)
                let entry = NotificationBatch.Entry(heading: heading, subscriptionID: row["subscription_id"],
                                                    member: member)
                try db.execute(sql: "INSERT INTO notification_batches(id, created_at, users, entries) VALUES (?, ?, ?, ?)",
                               arguments: [row["id"] as Int64, row["created_at"] as Int64,
                                           "\u{1}" + entry.user + "\u{1}", NotificationBatch.encode([entry])])
            }
            try db.execute(sql: """
                UPDATE courier_tokens SET delivered_through = delivered_through << 20;
                UPDATE meta SET value = (CAST(value AS INTEGER) << 20) | 1048575 WHERE key = 'notifications_expired_through';
                DROP TABLE notifications;
                """)
        }
        m.registerMigration("v8-sharing") { db in
            // Shares live beside the zone they share (their owner's private zone). `record_links` holds each record's
            // `parent` and the share that covers it (the nearest shared ancestor's, worked out on write), so that a
            // participant's read filters by share instead of walking parents record by record. A deleted record keeps
            // its row: a participant's change feed needs to know that the deletion was one of the share's.
            // `shared_zone_log` is each participant's shared-database feed: zones that joined or left it.
            try db.execute(sql: """
                CREATE TABLE shares(id INTEGER PRIMARY KEY AUTOINCREMENT, zone_id INTEGER NOT NULL, record_name TEXT NOT NULL, root_name TEXT,
                    short_guid TEXT NOT NULL UNIQUE, public_permission TEXT NOT NULL, change_tag TEXT NOT NULL,
                    created_ts INTEGER NOT NULL, created_by TEXT NOT NULL, modified_ts INTEGER NOT NULL, modified_by TEXT NOT NULL);
                CREATE UNIQUE INDEX shares_name ON shares(zone_id, record_name);
                CREATE UNIQUE INDEX shares_root ON shares(zone_id, root_name);
                CREATE TABLE share_participants(share_id INTEGER NOT NULL, user TEXT NOT NULL, email TEXT, permission TEXT NOT NULL,
                    type TEXT NOT NULL, status TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY(share_id, user)) WITHOUT ROWID;
                CREATE INDEX share_participants_user ON share_participants(user, status);
                CREATE TABLE record_links(zone_id INTEGER NOT NULL, record_name TEXT NOT NULL, parent TEXT, share_id INTEGER,
                    PRIMARY KEY(zone_id, record_name)) WITHOUT ROWID;
                CREATE INDEX record_links_parent ON record_links(zone_id, parent) WHERE parent IS NOT NULL;
                CREATE INDEX record_links_share ON record_links(share_id) WHERE share_id IS NOT NULL;
                CREATE TABLE shared_zone_log(user TEXT NOT NULL, zone_id INTEGER NOT NULL, seq INTEGER NOT NULL, removed INTEGER NOT NULL,
                    PRIMARY KEY(user, zone_id)) WITHOUT ROWID;
                CREATE INDEX shared_zone_log_seq ON shared_zone_log(user, seq);
                """)
        }
        m.registerMigration("v9-query-shapes") { db in
            // Each query shape's totals (see QueryShape, ShapeLog): calls, time, VM steps and rows, the latest window's
            // p50/p99, and one statement of the shape for EXPLAIN QUERY PLAN.
            try db.execute(sql: """
                CREATE TABLE query_shapes(shape TEXT PRIMARY KEY, record_type TEXT NOT NULL, calls INTEGER NOT NULL, micros INTEGER NOT NULL,
                    steps INTEGER NOT NULL, rows INTEGER NOT NULL, p50_us INTEGER NOT NULL, p99_us INTEGER NOT NULL, last_at INTEGER NOT NULL,
                    sql TEXT NOT NULL, spec TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v10-auto-indexes") { db in
            // Composite indexes Stratus built for query shapes (see AutoIndex); the index itself is `name` on the
            // type's table.
            try db.execute(sql: """
                CREATE TABLE auto_indexes(name TEXT PRIMARY KEY, type_id INTEGER NOT NULL, spec TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v11-auto-index-tables") { db in
            // Automatic indexes became index tables filled in steps (see AutoIndex). The CREATE INDEX ones built before
            // are dropped; the shapes that wanted them are still counted and get their index again.
            for name in try String.fetchAll(db,
                                            sql: "SELECT name FROM auto_indexes") { try db.execute(sql: "DROP INDEX IF EXISTS \(name)") }
            try db.execute(sql: """
                DELETE FROM auto_indexes;
                ALTER TABLE auto_indexes ADD COLUMN built_through INTEGER;
                ALTER TABLE auto_indexes ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
                """)
        }
        for step in shared.steps { m.registerMigration(step.name) { db in try step.apply(db.sql) } }
        return m
    }
}

extension EnvironmentMigrations {
    /// Steps written once for both backends, after the SQLite-only history above (v1…v11).
    static var shared: SQLMigrations {
        var m = SQLMigrations()
        // The environment's signing secret moves out of `meta`, whose values are integers on PostgreSQL.
        m.add("v12-secrets") { s in
            try s.script(s.dialect.ddl("CREATE TABLE secrets(name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID"))
            if s.dialect == .sqlite {
                try s.script("INSERT INTO secrets(name, value) SELECT 'environment', value FROM meta WHERE key = 'secret'; DELETE FROM meta WHERE key = 'secret'")
            }
        }
        // Notifications under a hostile user (see NotificationPolicy): `aps` kept once per distinct text and referenced
        // by the log (`notification_infos`), the log's size kept per batch and in total (its own budget, charged to no
        // quota), and counts that cap subscriptions per user and per environment.
        m.add("v13-notification-limits") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE notification_infos(ref TEXT PRIMARY KEY, aps TEXT NOT NULL, released_at INTEGER) WITHOUT ROWID;
                CREATE INDEX subscriptions_owner ON subscriptions(owner);
                ALTER TABLE notification_batches ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
                """))
            try s.execute("UPDATE notification_batches SET bytes = \(s.dialect.byteLength("entries")) + \(s.dialect.byteLength("users"))")
            try s.execute("INSERT INTO meta(key, value) SELECT 'subscription_count', COUNT(*) FROM subscriptions")
            try s.execute("INSERT INTO meta(key, value) SELECT 'notification_log_bytes', COALESCE(SUM(bytes), 0) FROM notification_batches")
            // Subscriptions saved before: the texts their notifications will reference.
            let decoder = JSONDecoder()
            for spec in try s.all("SELECT spec FROM subscriptions WHERE spec IS NOT NULL", [], { NamedRow($0,
                    Selection<LegacyColumn>([.spec])).string(.spec) }) {
                guard let sub = try? decoder.decode(Subscription.self, from: Data(spec.utf8)) else { continue }
                try NotificationInfos.keep(NotificationInfos.APS(sub.notificationInfo), s)
            }
        }
        // Web courier tokens are credentials: kept as their hash, ending with the web auth token that made them.
        m.add("v14-courier-token-hashes") { s in
            try s.script(s.dialect.ddl("""
                ALTER TABLE courier_tokens ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE courier_tokens ADD COLUMN web_token TEXT;
                """))
            let expires = WallClock.nowMillis() + 14 * 24 * 3600 * 1000
            for token in try s.all("SELECT token FROM courier_tokens", [], { NamedRow($0,
                    Selection<LegacyColumn>([.token])).string(.token) }) {
                try s.execute("UPDATE courier_tokens SET token = ?, expires_at = ? WHERE token = ?",
                              Secrets.tokenHash(token), expires, token)
            }
            try s.script(#"CREATE INDEX courier_tokens_user ON courier_tokens("user")"#)
        }
        // Upload tickets are signed with the environment's secret, so any server takes them; each is used once,
        // which this table remembers until it would have expired anyway.
        m.add("v15-used-upload-tickets",
              ddl: "CREATE TABLE used_upload_tickets(nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID")
        // Push to Apple devices: each registered device reads its user's notification log from its own position,
        // like a courier token, claimed by one server at a time (`claimed_until`); `apns_deliveries` is what the
        // console shows of each push (one row per device and
        // notification, updated by retries).
        m.add("v16-apns", ddl: """
            CREATE TABLE apns_devices(token TEXT PRIMARY KEY, "user" TEXT NOT NULL, apns_environment TEXT NOT NULL, created_at INTEGER NOT NULL,
                delivered_through INTEGER NOT NULL, claimed_until INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
            CREATE INDEX apns_devices_user ON apns_devices("user");
            CREATE TABLE apns_deliveries(id INTEGER PRIMARY KEY, token TEXT NOT NULL, "user" TEXT NOT NULL, nid TEXT NOT NULL, state TEXT NOT NULL,
                status INTEGER NOT NULL, reason TEXT, apns_id TEXT, attempts INTEGER NOT NULL, at INTEGER NOT NULL);
            CREATE INDEX apns_deliveries_device ON apns_deliveries(token, nid);
            """)
        // SQLite's location index moves from R*Tree tables to cell tables (see `GeoCell`), built again from the rows.
        m.add("v17-geo-cells") { s in
            guard s.dialect == .sqlite else { return }
            let rtrees = try s.all("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING rtree%'",
                                   []) { NamedRow($0, Selection<LegacyColumn>([.name])).string(.name) }
            for name in rtrees {
                guard let m = name.wholeMatch(of: /t([0-9]+)_f([0-9]+)_geo/) else { continue }
                try s.script("DROP TABLE \(name)")
                try GeoCellTable.create(name, s)
                try GeoCellTable.fill(name, from: "t\(m.1)", latitude: "f\(m.2)_lat", longitude: "f\(m.2)_lon", s)
            }
        }
        // Each user's storage, kept by every write so that one user's cap is checked without measuring (see
        // `UserUsage`); counted from the data once, when an environment first opens after this step.
        m.add("v18-user-usage",
              ddl: #"CREATE TABLE user_usage("user" TEXT PRIMARY KEY, bytes INTEGER NOT NULL) WITHOUT ROWID"#)
        // The notification log moves to one row per transaction and recipient (see `NotificationLog`), so that each
        // recipient is charged their own notifications and a flood drops only its recipient's backlog. Each user's
        // notifications keep their order; positions are renumbered per user, and the positions courier tokens and
        // devices were delivered through with them. (Notification IDs now spell the user too: a `Last-Event-ID` from
        // before is not found, and the client starts afresh, as after the retention.)
        m.add("v19-notification-log-per-recipient") { s in
            try s.script(s.dialect.ddl(#"""
                CREATE TABLE notification_log("user" TEXT NOT NULL, batch INTEGER NOT NULL, created_at INTEGER NOT NULL, entries TEXT NOT NULL,
                    notifications INTEGER NOT NULL, bytes INTEGER NOT NULL, PRIMARY KEY("user", batch)) WITHOUT ROWID;
                CREATE INDEX notification_log_batch ON notification_log(batch);
                CREATE INDEX notification_log_age ON notification_log(created_at);
                CREATE TABLE notification_recipients("user" TEXT PRIMARY KEY, bytes INTEGER NOT NULL, expired_through INTEGER NOT NULL) WITHOUT ROWID;
                """#))
            try NotificationLogConversion.run(s)
            try s.script("DROP TABLE notification_batches")
        }
        // A device is bound to the session that registered it (the hash of its web auth token): another user takes it
        // over only once that session has ended, and signing out unregisters it.
        m.add("v20-apns-device-sessions", ddl: "ALTER TABLE apns_devices ADD COLUMN web_token TEXT")
        // TIMESTAMP fields keep a `Date`'s own value, seconds since 2001 (see `TimestampConversion`).
        m.add("v21-timestamp-seconds") { s in try TimestampConversion.run(s) }
        // A share record's own fields (title, thumbnail, type), as `ShareFields` encodes them.
        m.add("v22-share-fields", ddl: "ALTER TABLE shares ADD COLUMN fields BLOB")
        // Change sequence values come from a counter per database (see `ChangeSequence`), so that writes to different
        // databases do not wait for one another; each starts from `meta.next_seq`, the one counter before.
        m.add("v23-change-counters",
              ddl: "CREATE TABLE change_counters(scope TEXT NOT NULL, owner TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY(scope, owner)) WITHOUT ROWID")
        // Each recipient's notifications are numbered in an order of their own (see `NotificationLog`), so that writes
        // notifying different users do not wait for one another. Every recipient's counter starts where the one order
        // was (`NotificationLog.legacyLastBatch`, which no longer moves), so positions handed out before read on.
        m.add("v24-notification-counters") { s in
            try s.script(s.dialect.ddl("ALTER TABLE notification_recipients ADD COLUMN last_batch INTEGER NOT NULL DEFAULT 0"))
            try s.execute("UPDATE notification_recipients SET last_batch = (\(NotificationLog.legacyLastBatch(s.dialect)))")
        }
        // PostgreSQL: every write moves its zone's `change_seq`, and an index on it made each of those updates write a
        // whole new row with an entry in every index of zones (never a heap-only update): the table and its indexes
        // swelled by a row per write, and statements on zones read hundreds of pages. `changes/database` finds a
        // database's zones by `zones_name` and sorts them instead. SQLite, which rewrites a row in place, keeps it.
        m.add("v25-zone-updates-in-place") { s in
            if s.dialect == .postgres { try s.script("DROP INDEX IF EXISTS zones_changes") }
        }
        // Uploads not yet attached to a record (see `AssetUploads`): charged to their uploader until a record of
        // theirs uses them, and gone, with their content, when that does not happen in time.
        m.add("v26-asset-uploads") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE asset_uploads(checksum TEXT NOT NULL, uploader TEXT NOT NULL, size INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                    PRIMARY KEY(checksum, uploader)) WITHOUT ROWID;
                CREATE INDEX asset_uploads_expiry ON asset_uploads(expires_at);
                """))
        }
        // The changes writes hand to the notification fan-out (see `NotificationHandOff`), read on after the commit.
        m.add("v27-notification-outbox") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE notification_outbox(id INTEGER PRIMARY KEY AUTOINCREMENT, created_at INTEGER NOT NULL, change BLOB NOT NULL, resume_after TEXT)
                """))
        }
        // A subscription is kept once, as its wire document (`Subscription(wire:)` parses it for matching): the parsed
        // copy goes, and so does what it was charged to its owner.
        m.add("v28-subscriptions-once") { s in
            let freed = try s.all("SELECT owner, SUM(\(s.dialect.byteLength("spec"))) AS bytes FROM subscriptions WHERE spec IS NOT NULL GROUP BY owner",
                                  []) { r in
                let row = NamedRow(r, Selection<LegacyColumn>([.owner, .bytes]))
                return (row.string(.owner) ?? "", -(row.int64(.bytes) ?? 0))
            }
            try UserUsage.add(Dictionary(freed, uniquingKeysWith: +), s)
            try s.script("ALTER TABLE subscriptions DROP COLUMN spec")
        }
        return m
    }

    /// Webhooks and their deliveries, as step v6 made them and the baseline declares them.
    static let webhookTables = """
        CREATE TABLE webhooks(id INTEGER PRIMARY KEY, url TEXT NOT NULL, record_types TEXT NOT NULL, secret TEXT NOT NULL,
            enabled INTEGER NOT NULL DEFAULT 1, failures INTEGER NOT NULL DEFAULT 0, last_status TEXT, last_delivery_at INTEGER,
            created_at INTEGER NOT NULL);
        CREATE TABLE webhook_deliveries(id INTEGER PRIMARY KEY, webhook_id INTEGER NOT NULL, nid TEXT NOT NULL, payload TEXT NOT NULL,
            state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL, last_error TEXT);
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at);
        """

    /// The zones' indexes and the schema's catalog (types, fields, roles), as step v1 made them and the baseline
    /// declares them.
    static let catalogTables = """
        CREATE UNIQUE INDEX zones_name ON zones(scope, owner, name);
        CREATE INDEX zones_changes ON zones(scope, owner, change_seq);
        CREATE TABLE record_types(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, grants TEXT NOT NULL);
        CREATE TABLE fields(
            id INTEGER PRIMARY KEY, type_id INTEGER NOT NULL REFERENCES record_types(id) ON DELETE CASCADE,
            name TEXT NOT NULL, scalar TEXT NOT NULL, is_list INTEGER NOT NULL, encrypted INTEGER NOT NULL,
            number_preferred INTEGER NOT NULL, indexes INTEGER NOT NULL, position INTEGER NOT NULL, UNIQUE(type_id, name));
        CREATE TABLE roles(name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
        """

    /// Every fixed table of an environment as the history above (v1…v11) leaves it, declared once, in SQLite's
    /// spelling (`SQLDialect.ddl` makes PostgreSQL's): a new SQLite file and a new PostgreSQL schema both start
    /// here, then take the shared steps. The history stays for data directories made before; SchemaParityTests
    /// holds the history and this declaration to the same tables, columns, types, keys and indexes. `"user"` is
    /// quoted: it is a reserved word on PostgreSQL.
    static let baseline = """
            CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER) WITHOUT ROWID;
            CREATE TABLE zones(
                id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL,
                atomic INTEGER NOT NULL, change_seq INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL);
            \(catalogTables)
            CREATE TABLE record_log(
                zone_id INTEGER NOT NULL, seq INTEGER NOT NULL, record_name TEXT NOT NULL,
                type_id INTEGER NOT NULL, record_id INTEGER NOT NULL, deleted INTEGER NOT NULL, PRIMARY KEY(zone_id, seq)) WITHOUT ROWID;
            CREATE UNIQUE INDEX record_log_name ON record_log(zone_id, record_name);
            CREATE TABLE cascade_refs(target_zone INTEGER NOT NULL, target_name TEXT NOT NULL, source_type INTEGER NOT NULL, source_id INTEGER NOT NULL);
            CREATE INDEX cascade_refs_target ON cascade_refs(target_zone, target_name);
            CREATE INDEX cascade_refs_source ON cascade_refs(source_type, source_id);
            CREATE TABLE assets(checksum TEXT PRIMARY KEY, size INTEGER NOT NULL, refs INTEGER NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE deployments(id INTEGER PRIMARY KEY, deployed_at INTEGER NOT NULL, deployed_by TEXT NOT NULL, changes TEXT NOT NULL);
            INSERT INTO meta(key, value) VALUES ('schema_generation', 1), ('next_seq', 1);
            CREATE TABLE role_members(role TEXT NOT NULL, "user" TEXT NOT NULL, PRIMARY KEY(role, "user")) WITHOUT ROWID;
            CREATE TABLE subscriptions(scope TEXT NOT NULL, owner TEXT NOT NULL, subscription_id TEXT NOT NULL, document TEXT NOT NULL,
                created_at INTEGER NOT NULL, spec TEXT, PRIMARY KEY(scope, owner, subscription_id)) WITHOUT ROWID;
            CREATE TABLE record_counts(zone_id INTEGER NOT NULL, type_id INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY(zone_id, type_id)) WITHOUT ROWID;
            CREATE TABLE courier_tokens(token TEXT PRIMARY KEY, "user" TEXT NOT NULL, created_at INTEGER NOT NULL, delivered_through INTEGER NOT NULL) WITHOUT ROWID;
            \(webhookTables)
            CREATE TABLE notification_batches(id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, users TEXT NOT NULL, entries TEXT NOT NULL);
            CREATE INDEX notification_batches_age ON notification_batches(created_at);
            CREATE TABLE shares(id INTEGER PRIMARY KEY AUTOINCREMENT, zone_id INTEGER NOT NULL, record_name TEXT NOT NULL, root_name TEXT,
                short_guid TEXT NOT NULL UNIQUE, public_permission TEXT NOT NULL, change_tag TEXT NOT NULL,
                created_ts INTEGER NOT NULL, created_by TEXT NOT NULL, modified_ts INTEGER NOT NULL, modified_by TEXT NOT NULL);
            CREATE UNIQUE INDEX shares_name ON shares(zone_id, record_name);
            CREATE UNIQUE INDEX shares_root ON shares(zone_id, root_name);
            CREATE TABLE share_participants(share_id INTEGER NOT NULL, "user" TEXT NOT NULL, email TEXT, permission TEXT NOT NULL,
                type TEXT NOT NULL, status TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY(share_id, "user")) WITHOUT ROWID;
            CREATE INDEX share_participants_user ON share_participants("user", status);
            CREATE TABLE record_links(zone_id INTEGER NOT NULL, record_name TEXT NOT NULL, parent TEXT, share_id INTEGER, PRIMARY KEY(zone_id, record_name)) WITHOUT ROWID;
            CREATE INDEX record_links_parent ON record_links(zone_id, parent) WHERE parent IS NOT NULL;
            CREATE INDEX record_links_share ON record_links(share_id) WHERE share_id IS NOT NULL;
            CREATE TABLE shared_zone_log("user" TEXT NOT NULL, zone_id INTEGER NOT NULL, seq INTEGER NOT NULL, removed INTEGER NOT NULL,
                PRIMARY KEY("user", zone_id)) WITHOUT ROWID;
            CREATE INDEX shared_zone_log_seq ON shared_zone_log("user", seq);
            CREATE TABLE query_shapes(shape TEXT PRIMARY KEY, record_type TEXT NOT NULL, calls INTEGER NOT NULL, micros INTEGER NOT NULL,
                steps INTEGER NOT NULL, rows INTEGER NOT NULL, p50_us INTEGER NOT NULL, p99_us INTEGER NOT NULL, last_at INTEGER NOT NULL,
                sql TEXT NOT NULL, spec TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE auto_indexes(name TEXT PRIMARY KEY, type_id INTEGER NOT NULL, spec TEXT NOT NULL, pinned INTEGER NOT NULL DEFAULT 0,
                created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL, built_through INTEGER, bytes INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
            """

    /// The names of the history's steps that `baseline` stands for (a new SQLite file records them as applied).
    static let baselineSteps = ["v1", "v2-role-members", "v3-subscriptions", "v4-record-counts", "v5-notifications",
                                "v6-webhooks",
                                "v7-notification-batches", "v8-sharing", "v9-query-shapes", "v10-auto-indexes", "v11-auto-index-tables"]

    /// Brings an SQLite environment file up to date: a new (empty) file gets `baseline` and the history's names in
    /// one transaction; then GRDB's migrator applies what is missing, as for any file made before.
    static func migrate(_ writer: some DatabaseWriter) throws {
        try writer.write { db in
            guard try !db.tableExists("grdb_migrations"), try !db.tableExists("meta") else { return }
            try db.execute(sql: baseline)
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for name in baselineSteps { try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES (?)",
                                                       arguments: [name]) }
        }
        try migrator.migrate(writer)
    }

    /// A PostgreSQL environment's tables: `baseline` in one step (PostgreSQL has no history to replay), then the
    /// shared steps.
    static var postgres: SQLMigrations {
        var m = SQLMigrations()
        m.add("pg-v11", ddl: baseline)
        for step in shared.steps { m.add(step.name, step.apply) }
        // Asset content lives in the database on PostgreSQL, so that every node serves it (see `uploadAsset`).
        // SQLite's `stratus_distance` is a Swift function (see `openSQLite`); here it is SQL, the same haversine.
        m.add("pg-distance") { s in
            try s.script("""
                CREATE FUNCTION stratus_distance(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                    SELECT 2 * 6371008.8 * asin(least(1, sqrt(
                        sin(radians(lat2 - lat1) / 2) ^ 2 + cos(radians(lat1)) * cos(radians(lat2)) * sin(radians(lon2 - lon1) / 2) ^ 2)))
                $$
                """)
        }
        m.add("pg-asset-chunks",
              ddl: "CREATE TABLE asset_chunks(checksum TEXT NOT NULL, n INTEGER NOT NULL, bytes BYTEA NOT NULL, PRIMARY KEY(checksum, n))")
        return m
    }
}
