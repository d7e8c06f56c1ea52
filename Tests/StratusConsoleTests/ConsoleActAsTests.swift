import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// "Act as": an admin chooses a user once, and the private and shared databases, subscriptions and sharing pages
/// read as that user, with a banner, until they stop; forged and stale choices are refused; Production needs the
/// server's consent and a confirmation, and every read there is audited. Also the colour scheme switch.
@Suite struct ConsoleActAsTests {
    let containerName = "iCloud.com.example.ActAs"

    /// Alice and Bob, each with a private "Notes" zone holding one note of their own.
    func people(_ f: ConsoleFixture) async throws -> (alice: ContainerUser, bob: ContainerUser) {
        let store = f.app.store
        return try await offPool {
            let container = try ContainerID(containerName)
            try store.createContainer(container)
            let alice = try store.accounts.createUser(container: container, email: "alice@example.com", password: "a long password", firstName: "Alice")
            let bob = try store.accounts.createUser(container: container, email: "bob@example.com", password: "a long password", firstName: "Bob")
            for env in [ContainerEnvironment.development, .production] {
                // Development makes the Note type as the notes are saved; Production gets it by deploy.
                if env == .production { _ = try store.lifecycle.deploy(container, by: "test") }
                let e = try store.environment(container, env)
                for (user, note) in [(alice, "alice-secret-note"), (bob, "bob-secret-note")] {
                    let db = DatabaseID.privateDatabase(of: user.userRecordName)
                    try e.zones.createZone(ZoneID(zoneName: "Notes"), in: db)
                    _ = try e.records.modify([RecordOperation(.create, StoredRecord(recordName: note, recordType: "Note", zoneID: ZoneID(zoneName: "Notes"),
                                                                            fields: ["title": .string(note)]))],
                                     in: db, zoneID: ZoneID(zoneName: "Notes"), actor: RequestActor(userRecordName: user.userRecordName))
                }
            }
            return (alice, bob)
        }
    }

    @Test func actingAsAliceShowsHerDataOnEveryPageAndNotBobs() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let (alice, bob) = try await people(f)
        let dev = "/console/\(containerName)/development"

        // Not acting yet: the private database asks whose, and the chooser finds users by name or email.
        let ask = try await s.get("\(dev)/private/records")
        #expect(ask.status == 200 && ask.html.contains("Whose private database?") && ask.html.contains("bob@example.com"))
        let found = try await s.get("\(dev)/act-as?q=ALI")
        #expect(found.html.contains("alice@example.com") && !found.html.contains("bob@example.com"))

        // A forged name is refused and changes nothing.
        #expect(try await s.post("\(dev)/act-as", [("user", "_forged")]).status == 404)
        #expect(try await s.post("\(dev)/act-as", [("user", alice.userRecordName)], csrf: false).status == 403)

        let chosen = try await s.post("\(dev)/act-as", [("user", alice.userRecordName)])
        #expect(chosen.status == 303)
        let records = try await s.get(try #require(chosen.headers["location"]) + "?zone=Notes&type=Note")
        #expect(records.html.contains("alice-secret-note") && !records.html.contains("bob-secret-note"), "\(records.html.prefix(300))")
        #expect(records.html.contains("Acting as <strong>Alice</strong>"))
        // Every page of the environment carries the banner, and the zones page reads as Alice without `as=`.
        for page in ["/", "/schema", "/private/zones", "/users", "/telemetry"] {
            #expect(try await s.get(dev + page).html.contains("Stop acting as Alice"), "\(page)")
        }
        // Not in another environment or container.
        #expect(!(try await s.get("/console/\(containerName)/production/").html.contains("Stop acting as")))
        // A link naming Bob still shows Bob's (the URL wins), never a mix.
        let bobs = try await s.get("\(dev)/private/records?zone=Notes&type=Note&as=\(bob.userRecordName)")
        #expect(bobs.html.contains("bob-secret-note") && !bobs.html.contains("alice-secret-note"))

        // Stopping ends it on every page.
        let stopped = try await s.post("\(dev)/act-as/stop")
        #expect(stopped.status == 303)
        #expect(try await s.get("\(dev)/private/records").html.contains("Whose private database?"))
        #expect(!(try await s.get(dev + "/").html.contains("Stop acting as")))
        let audit = try await s.get("/console/audit").html
        #expect(audit.contains("act as user") && audit.contains("stop acting as user"))

        // The Development test user is offered before anyone became it, and made when chosen; not in Production.
        #expect(try await s.get("\(dev)/act-as?q=test").html.contains("Act as the test user"))
        #expect(try await s.post("\(dev)/act-as", [("user", "test-user")]).status == 303)
        #expect(try await s.get(dev + "/").html.contains("Stop acting as Test User"))
        #expect(try f.app.store.accounts.user(container: ContainerID(containerName), email: AccountStore.testUserEmail(ContainerID(containerName))) != nil)
        #expect(try await s.post("/console/\(containerName)/production/act-as", [("user", "test-user"), ("confirm", "yes")]).status != 303)
    }

    @Test func aStaleChoiceIsRefusedAndForgotten() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let (alice, _) = try await people(f)
        let dev = "/console/\(containerName)/development"
        #expect(try await s.post("\(dev)/act-as", [("user", alice.userRecordName)]).status == 303)
        // The container is deleted and made again: Alice is no longer one of its users.
        let store = f.app.store, name = containerName
        try await offPool {
            try store.deleteContainer(ContainerID(name))
            try store.createContainer(ContainerID(name))
        }
        let refused = try await s.get("\(dev)/private/records")
        #expect(refused.status == 404 && refused.html.contains("no longer in this container"))
        let after = try await s.get("\(dev)/")
        #expect(after.status == 200 && !after.html.contains("Stop acting as"), "the stale choice is forgotten")
    }

    @Test func productionNeedsTheServersConsentAConfirmationAndIsAudited() async throws {
        let refusing = try await ConsoleFixture()
        let r = try await ConsoleSession.signIn(refusing)
        let (a, _) = try await people(refusing)
        let prodR = "/console/\(containerName)/production"
        #expect(try await r.post("\(prodR)/act-as", [("user", a.userRecordName), ("confirm", "yes")]).status == 403)
        #expect(try await r.get("\(prodR)/act-as").status == 403)
        let masked = try await r.get("\(prodR)/users").html
        #expect(masked.contains("a…@example.com") && !masked.contains("alice@example.com"), "emails masked without consent")

        let f = try await ConsoleFixture(allowProductionUserData: true)
        let s = try await ConsoleSession.signIn(f)
        let (alice, _) = try await people(f)
        let prod = "/console/\(containerName)/production"
        let unconfirmed = try await s.post("\(prod)/act-as", [("user", alice.userRecordName)])
        #expect(unconfirmed.status == 400 && unconfirmed.html.contains("confirmation"))
        #expect(try await s.post("\(prod)/act-as", [("user", alice.userRecordName), ("confirm", "yes")]).status == 303)
        // (Production queries need a QUERYABLE recordName index, which this schema lacks: records are read by name.)
        let hers = try await s.get("\(prod)/private/records/Notes/alice-secret-note")
        #expect(hers.status == 200 && hers.html.contains("alice-secret-note"))
        #expect(try await s.get("\(prod)/private/records/Notes/bob-secret-note").status == 404, "Bob's note is not in Alice's database")
        _ = try await s.get("\(prod)/subscriptions")
        let audit = try await s.get("/console/audit").html
        #expect(audit.contains("private database of \(alice.userRecordName): /console/\(containerName)/production/private/records/Notes/alice-secret-note") && audit.contains("subscriptions of \(alice.userRecordName)"))
    }

    @Test func theColourSchemeIsKeptForTheAdmin() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        #expect(!(try await s.get("/console/").html.contains("data-theme")), "system by default")
        #expect(try await s.post("/console/theme", [("theme", "dark")]).status == 303)
        let dark = try await s.get("/console/").html
        #expect(dark.contains("<html lang=\"en\" data-theme=\"dark\">") && dark.contains("value=\"dark\" aria-pressed=\"true\""))
        // Another session of the same admin (another device) sees it too.
        let other = try await ConsoleSession.signInAgain(f)
        #expect(try await other.get("/console/").html.contains("data-theme=\"dark\""))
        #expect(try await s.post("/console/theme", [("theme", "purple")]).status == 400)
        #expect(try await s.post("/console/theme", [("theme", "system")], csrf: false).status == 403)
        #expect(try await s.post("/console/theme", [("theme", "system")]).status == 303)
        #expect(!(try await s.get("/console/").html.contains("data-theme")))
    }
}
