import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore
import StratusTestSupport

/// Sharing tells no one who has an account: an owner who invites fifty addresses learns nothing from the answers,
/// an address without an account gets a pending invitation that becomes its own when it signs up, and only the
/// owner sees who else is on a share.
@Suite struct InvitationPrivacyTests {
    static func share(_ emails: [String], publicPermission: String = "NONE", op: String = "forceUpdate") -> String {
        let people = emails.map { #"{"userIdentity":{"lookupInfo":{"emailAddress":"\#($0)"}},"permission":"READ_WRITE"}"# }.joined(separator: ",")
        return #"{"zoneID":{"zoneName":"Lists"},"operations":[{"operationType":"\#(op)","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"publicPermission":"\#(publicPermission)","participants":[\#(people)]}}]}"#
    }

    @Test(arguments: Backend.allCases) func fiftyProbedAddressesLookAlike(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await SharingTests.people(f)
        // Five of the fifty addresses have accounts.
        let known = try await offPool { try (0..<5).map { i in try f.app.store.accounts.createUser(container: f.container, email: "known\(i)@example.com", password: "a long password") } }
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Lists"},"operations":[{"operationType":"create","record":{"recordName":"root","recordType":"List"}}]}"#, db: "private", user: p.ownerToken)
        _ = try await f.call("records/modify", Self.share([], op: "create"), db: "private", user: p.ownerToken)
        let addresses = (0..<50).map { $0 % 10 == 0 ? "known\($0 / 10)@example.com" : "stranger\($0)@example.com" }
        var shapes = Set<String>()
        for address in addresses {
            let r = try await f.call("records/modify", Self.share([address]), db: "private", user: p.ownerToken)
            let record = try #require(r.json.records.first)
            #expect(record.code == nil, "\(r.text.prefix(300))")
            let invited = try #require(record["participants"]?.array?.first { $0["type"]?.string == "USER" })
            // The entry, with the address and the id made from it taken out, must be the same for every address.
            var text = invited.serialized
            text = text.replacingOccurrences(of: address, with: "ADDRESS")
            text = text.replacing(/invited-[0-9a-f]{32}/, with: "ID")
            shapes.insert(text)
            #expect(!known.contains { r.text.contains($0.userRecordName) }, "no account's user record name shows")
        }
        #expect(shapes.count == 1, "every invitation looks the same: \(shapes)")

        // An address without an account is invited all the same; when its owner signs up, the invitation is theirs.
        _ = try await f.call("records/modify", Self.share(["newcomer@example.com", p.member.email]), db: "private", user: p.ownerToken)
        let newcomer = try await offPool { try f.app.store.accounts.createUser(container: f.container, email: "Newcomer@Example.com", password: "a long password") }
        let token = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: newcomer.userRecordName)
        let resolved = try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(try Self.guid(f, p))"}]}"#, user: token)
        #expect(resolved.json["results"]?.array?.first?["participantStatus"]?.string == "INVITED", "\(resolved.text.prefix(400))")
        let accepted = try await f.call("records/accept", #"{"shortGUIDs":[{"value":"\#(try Self.guid(f, p))"}]}"#, user: token)
        #expect(accepted.json["results"]?.array?.first?.code == nil)
        #expect(try await f.call("zones/list", db: "shared", user: token).json["zones"]?.array?.count == 1)
        // Once joined, the owner sees who it is.
        let owners = try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"s"}]}"#, db: "private", user: p.ownerToken)
        #expect(owners.text.contains(newcomer.userRecordName))

        // A member sees the owner and themselves, never the other invitees or their addresses.
        let asMember = try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(try Self.guid(f, p))"}]}"#, user: p.memberToken)
        let seen = asMember.json["results"]?.array?.first?["share"]?["participants"]?.array ?? []
        #expect(seen.count == 2 && !asMember.text.contains("newcomer") && !asMember.text.contains(newcomer.userRecordName), "\(asMember.text.prefix(500))")
    }

    @Test func someoneWhoJoinsAPublicShareSeesNoOneElse() async throws {
        let f = try await APIFixture()
        let p = try await SharingTests.people(f)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Lists"},"operations":[{"operationType":"create","record":{"recordName":"root","recordType":"List"}}]}"#, db: "private", user: p.ownerToken)
        _ = try await f.call("records/modify", Self.share([p.member.email, "friend@example.com"], publicPermission: "READ_ONLY", op: "create"), db: "private", user: p.ownerToken)
        _ = try await f.call("records/accept", #"{"shortGUIDs":[{"value":"\#(try Self.guid(f, p))"}]}"#, user: p.memberToken)
        let joined = try await f.call("records/accept", #"{"shortGUIDs":[{"value":"\#(try Self.guid(f, p))"}]}"#, user: p.outsiderToken)
        let participants = joined.json["results"]?.array?.first?["share"]?["participants"]?.array ?? []
        #expect(participants.map { $0["type"]?.string ?? "" }.sorted() == ["OWNER", "PUBLIC_USER"], "\(joined.text.prefix(500))")
        #expect(!joined.text.contains("friend@example.com") && !joined.text.contains(p.member.email) && !joined.text.contains(p.member.userRecordName))
    }

    /// An invitation to an address without an account is a bearer link: Stratus sends no email and verifies none, so
    /// whoever signs up as the address *and* holds the share's URL joins (see docs/running-on-the-internet.md). Without the URL, an
    /// account made with the invited address finds nothing: no zone, no change, nothing to accept.
    @Test func anAccountMadeWithAnInvitedAddressFindsNothingWithoutTheURL() async throws {
        let f = try await APIFixture()
        let p = try await SharingTests.people(f)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Lists"},"operations":[{"operationType":"create","record":{"recordName":"root","recordType":"List"}}]}"#, db: "private", user: p.ownerToken)
        _ = try await f.call("records/modify", Self.share(["later@example.com"], op: "create"), db: "private", user: p.ownerToken)
        let claimer = try await offPool { try f.app.store.accounts.createUser(container: f.container, email: "later@example.com", password: "a long password") }
        let token = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: claimer.userRecordName)
        #expect(try await f.call("zones/list", db: "shared", user: token).json["zones"]?.array?.isEmpty == true)
        let changes = try await f.call("changes/database", "{}", db: "shared", user: token)
        #expect(changes.json["zones"]?.array?.isEmpty == true, "\(changes.text.prefix(300))")
        let guessed = try await f.call("records/accept", #"{"shortGUIDs":[{"value":"AAAAAAAAAAAAAAAAAAAAAAAA"}]}"#, user: token)
        #expect(guessed.json["results"]?.array?.first?.code != nil)
        #expect(!(try await f.call("users/caller", user: token)).text.contains("Lists"))
    }

    static func guid(_ f: APIFixture, _ p: SharingTests.People) throws -> String {
        let env = try f.app.store.environment(f.container, .development)
        return try #require(try env.sharing.allShares().first?.shortGUID)
    }
}
