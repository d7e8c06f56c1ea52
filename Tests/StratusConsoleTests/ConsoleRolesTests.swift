import Foundation
import Testing
import StratusTestSupport
import StratusModel
@testable import StratusStore

/// Administrators' roles, enforced by the server on every kind of console surface (pages, forms, JSON answers),
/// whatever the buttons show: each role tries what it may not do and is refused with 403 and the role needed,
/// and does what it may.
@Suite struct ConsoleRolesTests {
    static let a = "iCloud.com.example.RolesA", b = "iCloud.com.example.RolesB"

    /// The owner (the first administrator), and one administrator per role in container A.
    static func team(_ f: ConsoleFixture) async throws -> [AdminRole: ConsoleSession] {
        let owner = try await ConsoleSession.signIn(f)
        for c in [a, b] { #expect(try await owner.post("/console/containers", [("id", c)]).status == 303) }
        var team: [AdminRole: ConsoleSession] = [.owner: owner]
        for role in [AdminRole.admin, .developer, .viewer] {
            let email = "\(role.rawValue)-role@example.com"
            _ = try f.app.store.admins.createAdmin(email: email, password: "a long admin password")
            #expect(try await owner.post("/console/administrators/grant", [("email", email), ("role", role.rawValue),
                                                                            ("container", a)]).status == 303)
            team[role] = try await ConsoleSession.signInAgain(f, email: email)
        }
        return team
    }

    @Test func eachRoleDoesWhatItMayAndIsRefusedTheRest() async throws {
        let f = try await ConsoleFixture(allowProductionUserData: true)
        let team = try await Self.team(f)
        let (owner, admin, developer, viewer) = (team[.owner]!, team[.admin]!, team[.developer]!, team[.viewer]!)
        let dev = "/console/\(Self.a)/development", prod = "/console/\(Self.a)/production"
        let user = try await offPool {
            try f.app.store.accounts.createUser(container: try ContainerID(Self.a), email: "person@example.com",
                                                password: "a long password")
        }
        _ = user

        // Everyone with a role reads every page of A, HTML and JSON; nobody without one reads B.
        for s in [owner, admin, developer, viewer] {
            #expect(try await s.get("\(dev)/schema").status == 200)
            #expect(try await s.get("\(prod)/telemetry").status == 200)
            #expect(try await s.get("\(dev)/schema", accept: "application/json").status == 200)
        }
        for s in [admin, developer, viewer] {
            let other = try await s.get("/console/\(Self.b)/development/schema")
            #expect(other.status == 403 && other.html.contains("You hold no role there"))
            let list = try await s.get("/console/")
            #expect(list.html.contains(Self.a) && !list.html.contains(Self.b) && !list.html.contains("Create a container"))
        }

        // A viewer changes nothing, in either environment, however the form is sent.
        let viewerType = try await viewer.post("\(dev)/schema/types", [("name", "ByViewer")])
        #expect(viewerType.status == 403 && viewerType.html.contains("needs the developer role"), "\(viewerType.html)")
        #expect(try await viewer.post("\(dev)/schema/types", [("name", "ByViewer")], accept: "application/json").status == 403)

        // A developer changes Development freely, and nothing of Production.
        #expect(try await developer.post("\(dev)/schema/types", [("name", "ByDeveloper")]).status == 303)
        #expect(try await developer.post("\(dev)/tokens", [("name", "dev token")]).status < 400)
        let prodToken = try await developer.post("\(prod)/tokens", [("name", "prod token")])
        #expect(prodToken.status == 403 && prodToken.html.contains("needs the admin role"))
        #expect(try await developer.post("/console/\(Self.a)/deploy", [("confirm", "yes")]).status == 403)
        #expect(try await developer.post("\(dev)/sign-in/sign-up", [("way", "password")]).status == 403, "container-wide")
        // No Production user data, whatever the server allows: emails masked, no private databases, no acting as.
        for s in [developer, viewer] {
            let users = try await s.get("\(prod)/users")
            #expect(users.status == 200 && !users.html.contains("person@example.com") && users.html.contains("p…@example.com"))
            #expect(try await s.get("\(prod)/private/records?as=\(user.userRecordName)").status == 403)
            #expect(try await s.post("\(prod)/act-as", [("user", user.userRecordName), ("confirm", "yes")]).status == 403)
        }
        let adminUsers = try await admin.get("\(prod)/users")
        #expect(adminUsers.html.contains("person@example.com"), "an admin reads Production users where the server allows it")

        // An admin deploys; administrators are the owner's alone.
        let deployPage = try await admin.get("/console/\(Self.a)/deploy").html
        let plan = try #require(deployPage.firstMatch(of: #/name="plan" value="([^"]*)"/#).map { String($0.output.1) })
        #expect(try await developer.post("/console/\(Self.a)/deploy", [("plan", plan)]).status == 403)
        let deployed = try await admin.post("/console/\(Self.a)/deploy", [("plan", plan)])
        #expect(deployed.status == 303, "\(deployed.html)")
        for s in [admin, developer, viewer] {
            let page = try await s.get("/console/administrators")
            #expect(page.status == 403 && page.html.contains("needs the owner role"))
            #expect(try await s.post("/console/administrators/grant", [("email", "viewer-role@example.com"), ("role", "owner")]).status == 403)
            #expect(!(try await s.get("/console/").html.contains(">Administrators<")))
        }
        let listed = try await owner.get("/console/administrators")
        #expect(listed.status == 200 && listed.html.contains("developer in \(Self.a)") && listed.html.contains(">Administrators<"))
        #expect(try await owner.get("/console/administrators", accept: "application/json").html.contains(#""everywhere":"owner""#))
        #expect(try await owner.post("/console/containers", [("id", "iCloud.com.example.RolesC")]).status == 303)
        #expect(try await admin.post("/console/containers", [("id", "iCloud.com.example.RolesD")]).status == 403,
                "making a container needs a role over every container")
        #expect(try await viewer.post("/console/theme", [("theme", "dark")]).status == 303, "anyone sets their own theme")

        // Admin API tokens are made, shown once and revoked on the same page.
        let made = try await owner.post("/console/administrators/tokens", [("name", "ci"), ("role", "developer"), ("container", Self.a), ("days", "90")])
        let secret = try #require(made.html.firstMatch(of: #/readonly value="([0-9a-f]{64})"/#).map { String($0.output.1) })
        #expect(try f.app.store.admins.authenticateToken(secret)?.roles == AdminRoles(containers: [try ContainerID(Self.a): .developer]))
        #expect(!(try await owner.get("/console/administrators").html.contains(secret)), "shown once")
        let tokenID = try #require(try f.app.store.admins.tokens().first?.id)
        #expect(try await admin.post("/console/administrators/tokens/\(tokenID)/revoke").status == 403)
        #expect(try await owner.post("/console/administrators/tokens/\(tokenID)/revoke").status == 303)
        #expect(try f.app.store.admins.authenticateToken(secret) == nil)

        // The owner's revocation takes effect at once; the last owner stays one; each change is audited.
        #expect(try await owner.post("/console/administrators/revoke", [("email", "developer-role@example.com"), ("container", Self.a)]).status == 303)
        #expect(try await developer.get("\(dev)/schema").status == 403)
        let demote = try await owner.post("/console/administrators/grant", [("email", "admin@example.com"), ("role", "viewer")])
        #expect(demote.status == 400 && demote.html.contains("last owner"))
        let audit = try await owner.get("/console/audit")
        #expect(audit.html.contains("grant role") && audit.html.contains("revoke role"))
    }
}
