import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// v30 gives administrators roles: every administrator there at the upgrade becomes an owner of every container;
/// one made after holds no role until granted one.
@Suite struct AdminRolesMigrationTests {
    @Test(arguments: Backend.allCases)
    func administratorsBeforeBecomeOwners(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try Fixture.make(backend) else { return }
            let first = try f.store.admins.createAdmin(email: "first@example.com", password: "a long admin password")
            let second = try f.store.admins.createAdmin(email: "second@example.com", password: "a long admin password")
            #expect(try f.store.admins.roles(of: first) == .owner)
            #expect(try f.store.admins.roles(of: second).isEmpty)
            try f.store.control.write { s in
                try s.script("DROP TABLE admin_roles")
                try Fixture.forgetMigration("v30-admin-roles", s)
            }
            let reopened = try f.reopen()
            defer { reopened.store.close() }
            #expect(try reopened.store.admins.roles(of: first) == .owner)
            #expect(try reopened.store.admins.roles(of: second) == .owner, "every administrator at the upgrade owns")
            let later = try reopened.store.admins.createAdmin(email: "later@example.com", password: "a long admin password")
            #expect(try reopened.store.admins.roles(of: later).isEmpty)
        }
    }
}
