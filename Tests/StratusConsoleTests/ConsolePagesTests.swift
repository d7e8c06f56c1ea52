import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// Every console page and form over real HTTP, as an admin would use them.
@Suite struct ConsolePagesTests {
    let container = "iCloud.com.example.Pages"
    var dev: String { "/console/\(container)/development" }
    var prod: String { "/console/\(container)/production" }

    /// A container with a Note type (title, n, tags, when, place) made through the schema pages.
    func setUp(_ f: ConsoleFixture) async throws -> ConsoleSession {
        let s = try await ConsoleSession.signIn(f)
        #expect(try await s.post("/console/containers", [("id", container)]).status == 303)
        #expect(try await s.post("\(dev)/schema/types", [("name", "Note")]).status == 303)
        for (name, type, indexes) in [("title", "STRING", ["QUERYABLE", "SORTABLE", "SEARCHABLE"]), ("n", "INT64", ["QUERYABLE", "SORTABLE"]),
                                      ("tags", "STRING_LIST", ["QUERYABLE"]), ("when", "TIMESTAMP", ["SORTABLE"]), ("place", "LOCATION", ["QUERYABLE"]),
                                      ("other", "REFERENCE", ["QUERYABLE"])] {
            let r = try await s.post("\(dev)/schema/Note/fields", [("name", name), ("type", type)] + indexes.map { ("index", $0) })
            #expect(r.status == 303, "\(name): \(r.html)")
        }
        return s
    }

    @Test func assetsShowTheirSizeAndTypeAndDownload() async throws {
        let f = try await ConsoleFixture()
        let s = try await setUp(f)
        #expect(try await s.post("\(dev)/schema/Note/fields", [("name", "picture"), ("type", "ASSET")]).status == 303)
        // An asset uploaded as a client would (through the store the API uses), then set on a record.
        let env = try f.app.store.environment(try ContainerID(container), .development)
        let png = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + [UInt8](repeating: 7, count: 2_000))
        let asset = try env.assets.uploadAsset(png)
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "pic", recordType: "Note", fields: ["picture": .asset(asset)]))],
                           in: .publicDatabase, actor: .system)
        let page = try await s.get("\(dev)/public/records/_defaultZone/pic")
        #expect(page.status == 200)
        #expect(page.html.contains("2.0 KB, image/png"), "\(page.html)")
        let href = try #require(page.html.firstMatch(of: /href="([^"]*\/assets\/[^"]+)" download/).map { String($0.1) })
        let download = try await s.get(href.replacingOccurrences(of: "&amp;", with: "&"))
        #expect(download.status == 200 && download.headers["content-type"] == "image/png")

        // Upload through the record page's form: a new value for the field, with the page's change tag.
        let tag = try #require(page.html.firstMatch(of: /name="tag" value="([^"]+)"/).map { String($0.1) })
        let pdf = Data(Array("%PDF-1.7 hello".utf8))
        let uploaded = try await s.upload("\(dev)/public/records/_defaultZone/pic/asset", [("tag", tag), ("field", "picture")], file: ("file", "a.pdf", pdf))
        #expect(uploaded.status == 303, "\(uploaded.html)")
        let after = try await s.get("\(dev)/public/records/_defaultZone/pic")
        #expect(after.html.contains("14 bytes, application/pdf"))
        // The old tag again: a conflict page, nothing saved; no CSRF token: refused; not an asset field: a clear error.
        let stale = try await s.upload("\(dev)/public/records/_defaultZone/pic/asset", [("tag", tag), ("field", "picture")], file: ("file", "b.png", png))
        #expect(stale.status == 409)
        let forged = try await s.upload("\(dev)/public/records/_defaultZone/pic/asset", [("tag", tag), ("field", "picture")], file: ("file", "b.png", png), csrf: false)
        #expect(forged.status == 403)
        let wrong = try await s.upload("\(dev)/public/records/_defaultZone/pic/asset", [("tag", tag), ("field", "title")], file: ("file", "b.png", png))
        #expect(wrong.status == 400 && wrong.html.contains("asset fields"))
        #expect(try await s.get("\(dev)/public/records/_defaultZone/pic").html.contains("application/pdf"))
        let log = try await s.get("/console/audit")
        #expect(log.html.contains("upload asset"))
    }

    @Test func schemaRecordsAndRecordPagesEndToEnd() async throws {
        let f = try await ConsoleFixture()
        let s = try await setUp(f)
        let schema = try await s.get("\(dev)/schema/Note")
        #expect(schema.status == 200 && schema.html.contains("LIST&lt;STRING&gt;") && schema.html.contains("Delete field"))

        // Create through the form: typed inputs, a list with two items, a location, a timestamp in UTC.
        let created = try await s.post("\(dev)/public/new-record?type=Note", [
            ("recordName", "first"), ("v:title", "Hello"), ("v:n", "42"), ("v:tags", "red"), ("v:tags", "blue"), ("v:tags", ""),
            ("v:when", "2026-01-02T03:04:05.678"), ("lat:place", "48.85"), ("lon:place", "2.35"), ("v:other", ""),
        ])
        #expect(created.status == 303, "\(created.html)")
        let bad = try await s.post("\(dev)/public/new-record?type=Note", [("recordName", "bad"), ("v:n", "forty-two")])
        #expect(bad.status == 400 && bad.html.contains("is not a whole number"))
        for i in 0..<5 {
            _ = try await s.post("\(dev)/public/new-record?type=Note", [("recordName", "r\(i)"), ("v:title", "Item \(i)"), ("v:n", "\(i)")])
        }

        let page = try await s.get("\(dev)/public/records/_defaultZone/first")
        #expect(page.status == 200)
        #expect(page.html.contains("2026-01-02 03:04:05.678 UTC") && page.html.contains("48.85, 2.35") && page.html.contains("<li>red</li><li>blue</li>"))
        let tag = try #require(page.html.firstMatch(of: /name="tag" value="([^"]+)"/).map { String($0.1) })

        // The query builder's form rows become a canonical URL, and the query runs.
        let built = try await s.get("\(dev)/public/records?type=Note&f=n&op=GREATER_THAN_OR_EQUALS&v=2&f=&op=EQUALS&v=&s=n&order=desc&field=title&field=n")
        #expect(built.status == 303)
        let location = try #require(built.headers["location"])
        #expect(location.contains("filter=n%20GREATER_THAN_OR_EQUALS%202") && location.contains("sort=-n"))
        let results = try await s.get(location)
        let names = results.html.matches(of: /records\/_defaultZone\/([a-z0-9]+)"/).map { String($0.1) }
        #expect(names == ["first", "r4", "r3", "r2"])
        #expect(results.html.contains("<th scope=\"col\">title</th><th scope=\"col\">n</th>"))

        // JSON variant and exports.
        let json = try await s.get(location, accept: "application/json")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.html.utf8)) as! [String: Any]
        #expect((decoded["records"] as! [[String: Any]]).count == 4)
        #expect(json.headers["stratus-console-json"] == "1", "the console's JSON face says its version")
        let csv = try await s.get("\(dev)/public/records?type=Note&sort=n&format=csv&fields=title,n")
        #expect(csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        #expect(csv.html.hasPrefix("recordName,recordChangeTag,modified,title,n\r\n") && csv.html.contains(",Item 0,0\r\n"))

        // Edit with the tag: saved. Edit again with the now-stale tag: a conflict page with the server's version.
        let saved = try await s.post("\(dev)/public/records/_defaultZone/first", [("tag", tag), ("v:title", "Changed"), ("v:n", "43"), ("v:tags", "red")])
        #expect(saved.status == 303)
        let stale = try await s.post("\(dev)/public/records/_defaultZone/first", [("tag", tag), ("v:title", "Mine"), ("v:n", "1")])
        #expect(stale.status == 409 && stale.html.contains("changed by someone else") && stale.html.contains("Changed") && stale.html.contains("Mine"))
        let after = try await s.get("\(dev)/public/records/_defaultZone/first", accept: "application/json")
        let record = try JSONSerialization.jsonObject(with: Data(after.html.utf8)) as! [String: Any]
        let fields = record["fields"] as! [String: [String: Any]]
        #expect(fields["title"]?["value"] as? String == "Changed" && fields["tags"]?["value"] as? [String] == ["red"] && fields["place"] == nil)

        // Delete with a stale tag is refused; with the current one it goes.
        #expect(try await s.post("\(dev)/public/records/_defaultZone/first/delete", [("tag", tag)]).status == 409)
        let current = record["recordChangeTag"] as! String
        #expect(try await s.post("\(dev)/public/records/_defaultZone/first/delete", [("tag", current)]).status == 303)
        #expect(try await s.get("\(dev)/public/records/_defaultZone/first").status == 404)
        let home = try await s.get("\(dev)/")
        #expect(home.html.contains("5 records in 1 record types"))
        #expect(home.html.contains("Storage: ") && home.html.contains("no quota"), "the container page shows storage against its quota")
        let containers = try await s.get("/console/")
        #expect(containers.html.contains("5 records</a>"))
    }

    @Test func hostileValuesDisplayAsText() async throws {
        let f = try await ConsoleFixture()
        let s = try await setUp(f)
        let hostile = "<script>alert(1)</script>\u{1}\"'&<img src=x onerror=alert(2)>"
        #expect(try await s.post("\(dev)/public/new-record?type=Note", [("recordName", "x<b>y"), ("v:title", hostile), ("v:tags", "<i>t</i>")]).status == 303)
        for path in ["\(dev)/public/records?type=Note", "\(dev)/public/records/_defaultZone/x%3Cb%3Ey"] {
            let p = try await s.get(path)
            #expect(p.status == 200)
            #expect(!p.html.contains("<script>alert") && !p.html.contains("<img src=x") && !p.html.contains("<b>y") && !p.html.contains("<i>t"))
            #expect(p.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;\u{2401}"))
        }
    }

    @Test func rolesDeployResetAndProductionIsReadOnly() async throws {
        let f = try await ConsoleFixture()
        let s = try await setUp(f)
        // Password hashing (210,000 PBKDF2 rounds) off Swift's few cooperative threads, which the servers need.
        let user = try await offPool { try f.app.store.accounts.createUser(container: ContainerID(container), email: "u@example.com", password: "user password 123") }
        #expect(try await s.post("\(dev)/roles/create", [("name", "Editors")]).status == 303)
        // The matrix as submitted: World reads, Editors write.
        #expect(try await s.post("\(dev)/roles", [("grant:Note:_world", "READ"), ("grant:Note:Editors", "WRITE"), ("grant:Note:Editors", "READ")]).status == 303)
        #expect(try await s.post("\(dev)/roles/Editors/members", [("user", "u@example.com")]).status == 303)
        let roles = try await s.get("\(dev)/roles", accept: "application/json")
        let r = try JSONSerialization.jsonObject(with: Data(roles.html.utf8)) as! [String: Any]
        let grants = (r["grants"] as! [String: [String: [String]]])["Note"]!
        #expect(grants.mapValues(Set.init) == ["_world": ["READ"], "Editors": ["READ", "WRITE"]])
        #expect((r["members"] as! [String: [String]])["Editors"] == [user.userRecordName])

        // Deploy: the plan, a stale confirmation refused, then applied; history shows it.
        let plan = try await s.get("/console/\(container)/deploy")
        #expect(plan.html.contains("add record type Note") && plan.html.contains("add role Editors"))
        // The schema check beside it: what Production would refuse of what Development's app did.
        #expect(plan.html.contains("record type Note is not in Production"))
        #expect(try await s.post("/console/\(container)/deploy", [("plan", "stale")]).status == 409)
        let fingerprint = try #require(plan.html.firstMatch(of: /name="plan" value="([^"]+)"/).map { String($0.1) })
        #expect(try await s.post("/console/\(container)/deploy", [("plan", fingerprint)]).status == 303)
        let history = try await s.get("/console/\(container)/deploy")
        #expect(history.html.contains("Nothing to deploy") && history.html.contains("admin@example.com"))
        #expect(history.html.contains("every record type and field it saved is in Production"))

        // Production: read-only schema, but queries need indexes and say which.
        #expect(try await s.post("\(prod)/schema/types", [("name", "Other")]).status == 403)
        let prodSchema = try await s.get("\(prod)/schema/Note")
        #expect(prodSchema.status == 200 && !prodSchema.html.contains("Save indexes"))
        let unindexed = try await s.get("\(prod)/public/records?type=Note&filter=when+EQUALS+2026-01-01")
        #expect(unindexed.status == 400 && unindexed.html.contains("QUERYABLE"))
        // Browsing users' data in Production needs the server flag.
        #expect(try await s.get("\(prod)/private/records?as=\(user.userRecordName)").status == 403)

        // Removing a deployed field is refused and explained; an undeployed one can go.
        #expect(try await s.post("\(dev)/schema/Note/fields", [("name", "draft"), ("type", "STRING")]).status == 303)
        let refused = try await s.post("\(dev)/schema/Note/fields/title/delete")
        #expect(refused.status == 400 && refused.html.contains("exists in Production"))
        #expect(try await s.post("\(dev)/schema/Note/fields/draft/delete").status == 303)

        // Reset: the typed confirmation must match.
        _ = try await s.post("\(dev)/public/new-record?type=Note", [("recordName", "a"), ("v:title", "A")])
        #expect(try await s.post("\(dev)/reset", [("confirm", "nope")]).status == 400)
        #expect(try f.app.store.environment(ContainerID(container), .development).records.recordCount() == 1)
        #expect(try await s.post("\(dev)/reset", [("confirm", container)]).status == 303)
        #expect(try f.app.store.environment(ContainerID(container), .development).records.recordCount() == 0)
        let audit = try await s.get("/console/audit")
        for action in ["deploy", "reset development", "create role Editors", "add role member"] { #expect(audit.html.contains(action), "\(action)") }
    }

    @Test func zonesUserBrowsingImportTokensAndErrors() async throws {
        let f = try await ConsoleFixture(allowProductionUserData: true)
        let s = try await setUp(f)
        // Password hashing (210,000 PBKDF2 rounds) off Swift's few cooperative threads, which the servers need.
        let user = try await offPool { try f.app.store.accounts.createUser(container: ContainerID(container), email: "u@example.com", password: "user password 123") }
        let zones = "\(dev)/private/zones?as=\(user.userRecordName)"
        #expect(try await s.get("\(dev)/private/zones").html.contains("u@example.com"))
        #expect(try await s.post(zones, [("zoneName", "Work")]).status == 303)
        #expect(try await s.post("\(dev)/public/zones", [("zoneName", "Nope")]).status == 400)
        _ = try await s.post("\(dev)/private/new-record?type=Note&zone=Work&as=\(user.userRecordName)", [("recordName", "p1"), ("v:title", "Private")])
        let list = try await s.get(zones, accept: "application/json")
        let z = (try JSONSerialization.jsonObject(with: Data(list.html.utf8)) as! [String: Any])["zones"] as! [[String: Any]]
        #expect(z.map { $0["zoneName"] as! String } == ["_defaultZone", "Work"] && z[1]["recordCount"] as? Int == 1)
        #expect(try await s.get("\(dev)/private/records?type=Note&zone=Work&as=\(user.userRecordName)").html.contains("p1"))
        #expect(try await s.get("\(dev)/private/records?as=_nobody").status == 404)
        let confirmPage = try await s.get("\(dev)/private/zones/Work/delete?as=\(user.userRecordName)")
        #expect(confirmPage.html.contains("1 record"))
        #expect(try await s.post("\(dev)/private/zones/Work/delete?as=\(user.userRecordName)", [("confirm", "work")]).status == 400)
        #expect(try await s.post("\(dev)/private/zones/Work/delete?as=\(user.userRecordName)", [("confirm", "Work")]).status == 303)

        // With the flag, Production user data can be browsed, and each view is audited.
        #expect(try await s.get("\(prod)/private/zones?as=\(user.userRecordName)").status == 200)
        #expect(try await s.get("/console/audit").html.contains("view user data"))

        // Import: a preview first, then the change.
        let ckdb = "DEFINE SCHEMA\n  RECORD TYPE Extra (\n    \"___recordID\" REFERENCE QUERYABLE,\n    label STRING QUERYABLE\n  );\n"
        let preview = try await s.post("\(dev)/schema/import", [("ckdb", ckdb)])
        #expect(preview.status == 200 && preview.html.contains("add record type Extra") && preview.html.contains("remove record type Note"))
        #expect(try f.app.store.environment(ContainerID(container), .development).schema.current().recordType(named: "Extra") == nil)
        let broken = try await s.post("\(dev)/schema/import", [("ckdb", "DEFINE SCHEMA RECORD TYPE (")])
        #expect(broken.status == 400 && broken.html.contains("line 1"))
        #expect(try await s.post("\(dev)/schema/import", [("ckdb", ckdb), ("confirm", "1")]).status == 303)
        #expect(try await s.get("\(dev)/schema?format=ckdb").html.contains("RECORD TYPE Extra"))

        // Tokens and keys: the secret is shown once; revoked tokens stay listed as revoked.
        let token = try await s.post("\(dev)/tokens", [("name", "web"), ("origins", "https://app.example.com")])
        let secret = try #require(token.html.firstMatch(of: /value="([0-9a-f]{64})"/).map { String($0.1) })
        #expect(try f.app.store.credentials.authenticateAPIToken(secret) != nil)
        #expect(try await s.post("\(dev)/tokens", [("name", "bad"), ("origins", "javascript:alert(1)")]).status == 400)
        let listed = try await s.get("\(dev)/tokens")
        #expect(!listed.html.contains(secret) && listed.html.contains("https://app.example.com"))
        let id = try #require(listed.html.firstMatch(of: /tokens\/([0-9]+)\/revoke/).map { String($0.1) })
        #expect(try await s.post("\(dev)/tokens/\(id)/revoke").status == 303)
        #expect(try f.app.store.credentials.authenticateAPIToken(secret) == nil)
        #expect(try await s.post("\(dev)/keys", [("pem", "not a key")]).status == 400)

        // Errors in the console's look; forms without the CSRF token are refused.
        let missing = try await s.get("/console/iCloud.com.example.Nothing/development/")
        #expect(missing.status == 404 && missing.html.contains("Stratus") && !missing.html.contains("Error("))
        #expect(try await s.get("\(dev)/public/records/_defaultZone/none").status == 404)
        #expect(try await s.get("/console/\(container)/staging/").status == 404)
        #expect(try await s.post("\(dev)/schema/types", [("name", "Sneaky")], csrf: false).status == 403)
        #expect(try await s.get("/console/\(container)/delete").html.contains("Type the container"))
        #expect(try await s.post("/console/\(container)/delete", [("confirm", container)]).status == 303)
        #expect(try await s.get("\(dev)/").status == 404)
    }
}
