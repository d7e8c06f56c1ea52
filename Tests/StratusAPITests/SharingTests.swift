import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel
import StratusStore
import StratusTestSupport
import Testing
@testable import StratusAPI

/// Sharing through Web Services: an owner, a participant and an outsider, each a real user of the container.
// Serialized: each test hashes three passwords (210,000 PBKDF2 rounds each); seven tests at once on 2 cores starved
// other suites' servers for seconds at the start of a run.
@Suite(.serialized) struct SharingTests {
    struct People {
        let owner: ContainerUser, ownerToken: String
        let member: ContainerUser, memberToken: String
        let outsider: ContainerUser, outsiderToken: String
    }

    static func people(_ f: APIFixture) async throws -> People {
        let store = f.app.store, container = f.container
        return try await offPool {
            let made = try ["owner", "member", "outsider"].map { name in
                let u = try store.accounts.createUser(container: container, email: "\(name)@example.com", password: "correct horse battery", firstName: name.capitalized)
                return (u, try store.accounts.createWebAuthToken(container: container, environment: .development, userRecordName: u.userRecordName))
            }
            return People(owner: made[0].0, ownerToken: made[0].1, member: made[1].0, memberToken: made[1].1, outsider: made[2].0, outsiderToken: made[2].1)
        }
    }

    func modify(_ f: APIFixture, _ ops: String, zone: String = #"{"zoneName":"Lists"}"#, db: String = "private", user: String) async throws -> APIFixture.Reply {
        try await f.call("records/modify", #"{"zoneID":\#(zone),"operations":[\#(ops)]}"#, db: db, user: user)
    }

    func create(_ name: String, _ type: String = "Item", parent: String? = nil) -> String {
        let p = parent.map { #","parent":{"recordName":"\#($0)"}"# } ?? ""
        return #"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"\#(type)","fields":{"title":{"value":"\#(name)"}}\#(p)}}"#
    }

    /// CloudKit JS exports its own spellings of a participant's constants (`PRIVATE_USER`, `PENDING`) and sends
    /// UNKNOWN for what is not set: a share that carries them is taken as one with the wire's (USER, INVITED), and
    /// what is answered stays the wire's.
    @Test func cloudKitJSParticipantSpellingsAreTaken() async throws {
        let f = try await APIFixture()
        let p = try await Self.people(f)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        let member = #"{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"type":"PRIVATE_USER","acceptanceStatus":"PENDING","permission":"READ_WRITE"}"#
        let friend = #"{"userIdentity":{"lookupInfo":{"emailAddress":"outsider@example.com"}},"type":"UNKNOWN","acceptanceStatus":"UNKNOWN","permission":"UNKNOWN"}"#
        let made = try await modify(f, #"{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","publicPermission":"UNKNOWN","participants":[\#(member),\#(friend)]}}"#, user: p.ownerToken)
        let share = try #require(made.json.records.first, "\(made.text)")
        #expect(share.code == nil, "\(made.text)")
        #expect(share["publicPermission"]?.string == "NONE")
        let people = share["participants"]?.array ?? []
        let invited = people.filter { $0["type"]?.string == "USER" }
        #expect(invited.count == 2 && invited.allSatisfy { $0["acceptanceStatus"]?.string == "INVITED" }, "\(made.text)")
        #expect(Set(invited.compactMap { $0["permission"]?.string }) == ["READ_WRITE", "READ_ONLY"], "UNKNOWN is the default, read only")
        let bad = try await modify(f, #"{"operationType":"create","record":{"recordName":"s2","recordType":"cloudkit.share","participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"permission":"ALL_OF_IT"}]}}"#, zone: #"{"zoneName":"Other"}"#, user: p.ownerToken)
        #expect(bad.json.records.first?.code == "BAD_REQUEST" || bad.status == 400, "\(bad.text)")
    }

    /// A share record's fields are kept and returned (they were answered `"fields": {}`), and a zone-wide share
    /// comes with its zone in `zones/list` and `zones/lookup`, for the owner and for a participant.
    @Test(arguments: Backend.allCases) func shareFieldsAreKeptAndAZoneNamesItsShare(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        let fields = #""cloudkit.title":{"value":"Our lists","type":"STRING"},"cloudkit.thumbnailImageData":{"value":"iVBORw0KGgo=","type":"BYTES"},"cloudkit.type":{"value":"com.example.list"}"#
        let made = try await modify(f, #"{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","fields":{\#(fields)},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"permission":"READ_WRITE"}]}}"#, user: p.ownerToken)
        let share = try #require(made.json.records.first, "\(made.text)")
        #expect(share["fields"]?["cloudkit.title"]?["value"]?.string == "Our lists", "\(made.text)")
        #expect(share["fields"]?["cloudkit.thumbnailImageData"]?["value"]?.string == "iVBORw0KGgo=")
        let guid = try #require(share["shortGUID"]?.string)
        let looked = try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"cloudkit.zoneshare"}]}"#, db: "private", user: p.ownerToken)
        #expect(looked.json.records.first?["fields"]?["cloudkit.type"]?["value"]?.string == "com.example.list", "\(looked.text)")
        // An update changes what it names and keeps the rest.
        let tag = try #require(share["recordChangeTag"]?.string)
        let renamed = try await modify(f, #"{"operationType":"update","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","fields":{"cloudkit.title":{"value":"Lists"}}}}"#, user: p.ownerToken)
        #expect(renamed.json.records.first?["fields"]?["cloudkit.title"]?["value"]?.string == "Lists" && renamed.json.records.first?["fields"]?["cloudkit.type"] != nil, "\(renamed.text)")

        for (path, body) in [("zones/list", nil), ("zones/lookup", #"{"zones":[{"zoneID":{"zoneName":"Lists"}}]}"#)] as [(String, String?)] {
            let r = try await f.call(path, body, db: "private", user: p.ownerToken)
            let lists = r.json["zones"]?.array?.first { $0["zoneID"]?["zoneName"]?.string == "Lists" }
            #expect(lists?["share"]?["recordName"]?.string == "cloudkit.zoneshare", "\(path): \(r.text)")
        }
        let plain = try await f.call("zones/list", nil, db: "private", user: p.memberToken)
        #expect(plain.json["zones"]?.array?.allSatisfy { $0["share"] == nil } == true, "the member's own zones have no share")
        _ = try await f.call("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: p.memberToken)
        let shared = try await f.call("zones/list", nil, db: "shared", user: p.memberToken)
        #expect(shared.json["zones"]?.array?.first?["share"]?["recordName"]?.string == "cloudkit.zoneshare", "\(shared.text)")
    }

    /// The member's shared database spans two owners' zones, each owner's changes ordered by their own database:
    /// paged one zone at a time the feed names each zone once, and from its token each owner's next write shows
    /// that owner's zone alone.
    @Test(arguments: Backend.allCases) func theSharedDatabaseFeedKeepsEachOwnersPlace(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        let owners = [("Lists", p.ownerToken), ("Chores", p.outsiderToken)]
        for (zone, token) in owners {
            _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#, db: "private", user: token)
            let made = try await modify(f, #"{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"permission":"READ_WRITE"}]}}"#,
                                        zone: #"{"zoneName":"\#(zone)"}"#, user: token)
            let guid = try #require(made.json.records.first?["shortGUID"]?.string, "\(made.text)")
            _ = try await f.call("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: p.memberToken)
        }
        func changes(_ token: String?) async throws -> (zones: [String], token: String, more: Bool) {
            let body = token.map { #"{"resultsLimit":1,"syncToken":"\#($0)"}"# } ?? #"{"resultsLimit":1}"#
            let r = try await f.call("changes/database", body, db: "shared", user: p.memberToken)
            let names = (r.json["zones"]?.array ?? []).compactMap { $0["zoneID"]?["zoneName"]?.string }
            return (names, try #require(r.json["syncToken"]?.string, "\(r.text)"), r.json["moreComing"]?.bool ?? false)
        }
        var seen: [String] = []
        var token: String? = nil
        for _ in 0..<5 {
            let page = try await changes(token)
            seen += page.zones
            token = page.token
            if !page.more { break }
        }
        #expect(seen.sorted() == ["Chores", "Lists"], "each shared zone once: \(seen)")
        #expect(try await changes(token).zones.isEmpty)
        for (zone, ownerToken) in owners.reversed() {
            _ = try await modify(f, create("item-\(zone)"), zone: #"{"zoneName":"\#(zone)"}"#, user: ownerToken)
            let next = try await changes(token)
            #expect(next.zones == [zone], "after \(zone)'s owner wrote: \(next.zones)")
            token = next.token
        }
        #expect(try await changes(token).zones.isEmpty)
    }

    @Test(arguments: Backend.allCases) func aHierarchyIsSharedReadOnlyThenReadWriteThenRevoked(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        let sharedZone = #"{"zoneName":"Lists","ownerRecordName":"\#(p.owner.userRecordName)"}"#
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Other"}}}]}"#, db: "private", user: p.ownerToken)
        // The root, a child, a grandchild; a record outside the hierarchy; and the share, in one request.
        let made = try await modify(f, [create("groceries", "List"), create("milk", parent: "groceries"), create("skimmed", parent: "milk"),
                                        create("diary-secret"), #"{"operationType":"create","record":{"recordName":"share-1","recordType":"cloudkit.share","forRecord":{"recordName":"groceries"},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"permission":"READ_ONLY"}]}}"#].joined(separator: ","), user: p.ownerToken)
        #expect(made.status == 200 && made.json.records.count == 5 && made.json.records.allSatisfy { $0.code == nil }, "\(made.text)")
        let share = try #require(made.json.records.last)
        let guid = try #require(share["shortGUID"]?.string)
        #expect(share["recordType"]?.string == "cloudkit.share" && share["publicPermission"]?.string == "NONE")
        #expect(share["participants"]?.array?.map { $0["acceptanceStatus"]?.string ?? "" } == ["ACCEPTED", "INVITED"], "\(share)")
        #expect(made.json.records[1]["parent"]?["recordName"]?.string == "groceries")

        // The owner reads the system fields back.
        let own = try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"groceries"},{"recordName":"skimmed"},{"recordName":"share-1"}]}"#, db: "private", user: p.ownerToken)
        #expect(own.json.records[0]["share"]?["recordName"]?.string == "share-1" && own.json.records[1]["parent"]?["recordName"]?.string == "milk", "\(own.text)")
        #expect(own.json.records[2]["recordType"]?.string == "cloudkit.share" && own.json.records[2]["shortGUID"]?.string == guid, "the share record is looked up by name: \(own.text)")
        // Before accepting, the member cannot look the share up through a shared database.
        #expect(try await f.call("records/lookup", #"{"zoneID":\#(sharedZone),"records":[{"recordName":"share-1"}]}"#, db: "shared", user: p.memberToken).json.code == "ZONE_NOT_FOUND")

        // Before accepting, nothing is in the member's shared database; the outsider cannot even resolve the URL.
        #expect(try await f.call("zones/list", db: "shared", user: p.memberToken).json["zones"]?.array?.isEmpty == true)
        let resolved = try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true}]}"#, user: p.memberToken)
        let r0 = try #require(resolved.json["results"]?.array?.first)
        #expect(r0["participantStatus"]?.string == "INVITED" && r0["rootRecord"]?["recordName"]?.string == "groceries"
                && r0["ownerIdentity"]?["userRecordName"]?.string == p.owner.userRecordName && r0["webpageURL"]?.string?.hasSuffix("/share/\(guid)") == true, "\(resolved.text)")
        let outsiderResolve = try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true}]}"#, user: p.outsiderToken)
        #expect(outsiderResolve.json["results"]?.array?.first?.code == "ACCESS_DENIED" && !outsiderResolve.text.contains("groceries") && !outsiderResolve.text.contains("member@"), "\(outsiderResolve.text)")
        #expect(try await f.call("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: p.outsiderToken).json["results"]?.array?.first?.code == "ACCESS_DENIED")

        // The member accepts (twice: the second changes nothing) and sees the hierarchy, and only it.
        for _ in 0..<2 {
            let accepted = try await f.call("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: p.memberToken)
            #expect(accepted.json["results"]?.array?.first?["participantStatus"]?.string == "ACCEPTED", "\(accepted.text)")
        }
        let zones = try await f.call("zones/list", db: "shared", user: p.memberToken)
        #expect(zones.json["zones"]?.array?.map { $0["zoneID"]?["ownerRecordName"]?.string ?? "" } == [p.owner.userRecordName], "\(zones.text)")
        let query = try await f.call("records/query", #"{"zoneID":\#(sharedZone),"query":{"recordType":"Item"}}"#, db: "shared", user: p.memberToken)
        #expect(Set(query.json.names) == ["milk", "skimmed"], "\(query.text)")
        let lookup = try await f.call("records/lookup", #"{"zoneID":\#(sharedZone),"records":[{"recordName":"groceries"},{"recordName":"diary-secret"},{"recordName":"share-1"}]}"#, db: "shared", user: p.memberToken)
        #expect(lookup.json.records[0]["recordName"]?.string == "groceries" && lookup.json.records[1].code == "NOT_FOUND", "\(lookup.text)")
        #expect(lookup.json.records[2]["currentUserParticipant"]?["acceptanceStatus"]?.string == "ACCEPTED", "\(lookup.text)")
        #expect(!lookup.text.contains("diary-secret\",\"recordType"))
        let changes = try await f.call("changes/zone", #"{"zones":[{"zoneID":\#(sharedZone)}]}"#, db: "shared", user: p.memberToken)
        let changed = Set(changes.json["zones"]?.array?.first?.records.compactMap { $0["recordName"]?.string } ?? [])
        #expect(changed == ["groceries", "milk", "skimmed"], "\(changes.text)")
        let feed = try await f.call("records/changes", #"{"zoneID":\#(sharedZone)}"#, db: "shared", user: p.memberToken)
        #expect(Set(feed.json.names) == ["groceries", "milk", "skimmed"], "\(feed.text)")
        #expect(try await f.call("records/query", #"{"zoneID":{"zoneName":"Other","ownerRecordName":"\#(p.owner.userRecordName)"},"query":{"recordType":"Item"}}"#, db: "shared", user: p.memberToken).json.code == "ZONE_NOT_FOUND")

        // READ_ONLY: every write is refused per item, and nothing changes.
        let refused = try await modify(f, [#"{"operationType":"forceUpdate","record":{"recordName":"milk","recordType":"Item","fields":{"title":{"value":"x"}}}}"#,
                                           create("eggs", parent: "groceries"), #"{"operationType":"forceDelete","record":{"recordName":"skimmed"}}"#].joined(separator: ","),
                                     zone: sharedZone, db: "shared", user: p.memberToken)
        #expect(refused.json.records.map { $0.code ?? "" } == ["ACCESS_DENIED", "ACCESS_DENIED", "ACCESS_DENIED"], "\(refused.text)")
        // Outside the hierarchy a record does not exist for the member.
        let outside = try await modify(f, #"{"operationType":"forceDelete","record":{"recordName":"diary-secret"}}"#, zone: sharedZone, db: "shared", user: p.memberToken)
        #expect(outside.json.records.first?.code == "NOT_FOUND", "\(outside.text)")

        // Only the owner changes the share; then the owner upgrades the member.
        let sneaky = try await modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"share-1","recordType":"cloudkit.share","publicPermission":"READ_WRITE"}}"#, zone: sharedZone, db: "shared", user: p.memberToken)
        #expect(sneaky.json.records.first?.code == "ACCESS_DENIED", "\(sneaky.text)")
        let upgrade = try await modify(f, #"{"operationType":"update","record":{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"\#(share["recordChangeTag"]?.string ?? "")","participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"permission":"READ_WRITE"}]}}"#, user: p.ownerToken)
        #expect(upgrade.json.records.first?["participants"]?.array?.last?["permission"]?.string == "READ_WRITE", "\(upgrade.text)")
        let before = try await f.call("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Lists"}}]}"#, db: "private", user: p.ownerToken)
        let token = try #require(before.json["zones"]?.array?.first?["syncToken"]?.string)
        let wrote = try await modify(f, [create("eggs", parent: "groceries"), #"{"operationType":"forceUpdate","record":{"recordName":"milk","recordType":"Item","fields":{"title":{"value":"oat milk"}}}}"#].joined(separator: ","),
                                     zone: sharedZone, db: "shared", user: p.memberToken)
        #expect(wrote.json.records.allSatisfy { $0.code == nil } && wrote.json.records.first?["created"]?["userRecordName"]?.string == p.member.userRecordName, "\(wrote.text)")
        #expect(wrote.json.records.first?["zoneID"]?["ownerRecordName"]?.string == p.owner.userRecordName)
        let after = try await f.call("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Lists"},"syncToken":"\#(token)"}]}"#, db: "private", user: p.ownerToken)
        let seen = after.json["zones"]?.array?.first?.records ?? []
        #expect(Set(seen.compactMap { $0["recordName"]?.string }) == ["eggs", "milk"], "\(after.text)")
        #expect(seen.first { $0["recordName"]?.string == "eggs" }?["created"]?["userRecordName"]?.string == p.member.userRecordName)
        // A record the member creates must hang under the share.
        let orphan = try await modify(f, create("loose"), zone: sharedZone, db: "shared", user: p.memberToken)
        #expect(orphan.json.records.first?.code == "ACCESS_DENIED", "\(orphan.text)")

        // The owner removes the member: the next request is refused and the zone leaves their shared database.
        let dbBefore = try await f.call("changes/database", "{}", db: "shared", user: p.memberToken)
        let dbToken = try #require(dbBefore.json["syncToken"]?.string)
        let current = try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: p.ownerToken)
        let tag = current.json["results"]?.array?.first?["share"]?["recordChangeTag"]?.string ?? ""
        let removal = try await modify(f, #"{"operationType":"update","record":{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","participants":[]}}"#, user: p.ownerToken)
        #expect(removal.json.records.first?.code == nil, "\(removal.text)")
        #expect(try await f.call("records/query", #"{"zoneID":\#(sharedZone),"query":{"recordType":"Item"}}"#, db: "shared", user: p.memberToken).json.code == "ZONE_NOT_FOUND")
        #expect(try await f.call("zones/list", db: "shared", user: p.memberToken).json["zones"]?.array?.isEmpty == true)
        let dbAfter = try await f.call("changes/database", #"{"syncToken":"\#(dbToken)"}"#, db: "shared", user: p.memberToken)
        #expect(dbAfter.text.contains("Lists") && dbAfter.text.contains("\"deleted\":true"), "\(dbAfter.text)")
        #expect(try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: p.memberToken).json["results"]?.array?.first?.code == "ACCESS_DENIED")

        // Deleting the root deletes the share.
        _ = try await modify(f, #"{"operationType":"forceDelete","record":{"recordName":"groceries"}}"#, user: p.ownerToken)
        #expect(try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: p.ownerToken).json["results"]?.array?.first?.code == "ACCESS_DENIED")
    }

    @Test(arguments: Backend.allCases) func aZoneShareWithAPublicLinkAndItsRevocation(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        let zone = #"{"zoneName":"Family","ownerRecordName":"\#(p.owner.userRecordName)"}"#
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Family"}}}]}"#, db: "private", user: p.ownerToken)
        let made = try await modify(f, [create("a"), create("b"), #"{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","publicPermission":"READ_ONLY"}}"#].joined(separator: ","),
                                    zone: #"{"zoneName":"Family"}"#, user: p.ownerToken)
        let share = try #require(made.json.records.last)
        let guid = try #require(share["shortGUID"]?.string, "\(made.text)")
        // Someone with the link sees the share, but not who else is on it.
        _ = try await modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"permission":"READ_WRITE"}]}}"#, zone: #"{"zoneName":"Family"}"#, user: p.ownerToken)
        let peek = try await f.call("records/resolve", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.outsiderToken)
        #expect(peek.json["results"]?.array?.first?["share"] != nil && !peek.text.contains("member@example.com") && !peek.text.contains(p.member.userRecordName), "\(peek.text)")
        // Anyone with the link joins as a PUBLIC_USER and reads the whole zone, read-only.
        let joined = try await f.call("records/accept", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.outsiderToken)
        #expect(joined.json["results"]?.array?.first?["participantType"]?.string == "PUBLIC_USER", "\(joined.text)")
        let all = try await f.call("records/query", #"{"zoneID":\#(zone),"query":{"recordType":"Item"}}"#, db: "shared", user: p.outsiderToken)
        #expect(Set(all.json.names) == ["a", "b"], "\(all.text)")
        let write = try await modify(f, create("c"), zone: zone, db: "shared", user: p.outsiderToken)
        #expect(write.json.records.first?.code == "ACCESS_DENIED", "\(write.text)")
        // A zone-wide share rules out record shares in the zone.
        let second = try await modify(f, #"{"operationType":"create","record":{"recordName":"s2","recordType":"cloudkit.share","forRecord":{"recordName":"a"}}}"#, zone: #"{"zoneName":"Family"}"#, user: p.ownerToken)
        #expect(second.json.records.first?.code == "BAD_REQUEST", "\(second.text)")
        // Lowering the public permission ends the public user's access at once.
        let lowered = try await modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","publicPermission":"NONE"}}"#, zone: #"{"zoneName":"Family"}"#, user: p.ownerToken)
        #expect(lowered.json.records.first?["publicPermission"]?.string == "NONE", "\(lowered.text)")
        #expect(try await f.call("records/query", #"{"zoneID":\#(zone),"query":{"recordType":"Item"}}"#, db: "shared", user: p.outsiderToken).json.code == "ZONE_NOT_FOUND")
        // Deleting the share ends everyone's.
        let deleted = try await modify(f, #"{"operationType":"forceDelete","record":{"recordName":"cloudkit.zoneshare"}}"#, zone: #"{"zoneName":"Family"}"#, user: p.ownerToken)
        #expect(deleted.json.records.first?["deleted"]?.bool == true, "\(deleted.text)")
    }

    @Test(arguments: Backend.allCases) func badSharesAreRefusedPerItemAndWriteNothing(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}},{"operationType":"create","zone":{"zoneID":{"zoneName":"Else"}}}]}"#, db: "private", user: p.ownerToken)
        _ = try await modify(f, [create("root", "List"), create("child", parent: "root")].joined(separator: ","), user: p.ownerToken)
        _ = try await modify(f, create("there"), zone: #"{"zoneName":"Else"}"#, user: p.ownerToken)
        let many = (0..<101).map { #"{"userIdentity":{"lookupInfo":{"userRecordName":"_\#(String(format: "%032x", $0))"}},"permission":"READ_ONLY"}"# }.joined(separator: ",")
        let cases: [(String, String, String)] = [
            ("a user record name that is no user's", #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"_00000000000000000000000000000000"}},"permission":"READ_ONLY"}]}}"#, "BAD_REQUEST"),
            ("an address that is none", #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"nobody"}},"permission":"READ_ONLY"}]}}"#, "BAD_REQUEST"),
            ("101 participants", #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[\#(many)]}}"#, "BAD_REQUEST"),
            ("a missing root", #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"ghost"}}}"#, "BAD_REQUEST"),
            ("no root", #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share"}}"#, "BAD_REQUEST"),
            ("a parent in another zone", #"{"operationType":"create","record":{"recordName":"x","recordType":"Item","parent":{"recordName":"there","zoneID":{"zoneName":"Else"}}}}"#, "BAD_REQUEST"),
            ("a parent that does not exist", #"{"operationType":"create","record":{"recordName":"x","recordType":"Item","parent":{"recordName":"ghost"}}}"#, "BAD_REQUEST"),
            ("a cycle", #"{"operationType":"forceUpdate","record":{"recordName":"root","recordType":"List","parent":{"recordName":"child"}}}"#, "BAD_REQUEST"),
        ]
        for (what, op, code) in cases {
            let r = try await modify(f, op, user: p.ownerToken)
            #expect(r.status == 200 && r.json.records.first?.code == code, "\(what): \(r.text)")
        }
        // A whole-request shape error is BAD_REQUEST at the top.
        let shape = try await modify(f, #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":"everyone"}}"#, user: p.ownerToken)
        #expect(shape.status == 400 && shape.json.code == "BAD_REQUEST", "\(shape.text)")
        // Shares live in custom zones of the private database.
        let inDefault = try await modify(f, #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"r"}}}"#, zone: #"{"zoneName":"_defaultZone"}"#, user: p.ownerToken)
        #expect(inDefault.json.records.first?.code == "BAD_REQUEST", "\(inDefault.text)")
        let inPublic = try await modify(f, #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"r"}}}"#, zone: #"{"zoneName":"_defaultZone"}"#, db: "public", user: p.ownerToken)
        #expect(inPublic.json.records.first?.code == "BAD_REQUEST", "\(inPublic.text)")
        // One share per record: the child of a shared root cannot be shared again.
        let first = try await modify(f, #"{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share","forRecord":{"recordName":"root"}}}"#, user: p.ownerToken)
        #expect(first.json.records.first?.code == nil, "\(first.text)")
        let again = try await modify(f, #"{"operationType":"create","record":{"recordName":"s2","recordType":"cloudkit.share","forRecord":{"recordName":"child"}}}"#, user: p.ownerToken)
        #expect(again.json.records.first?.code == "BAD_REQUEST", "\(again.text)")
        // Forged and malformed short GUIDs.
        for g in ["AAAAAAAAAAAAAAAAAAAAAAAA", "../../etc", String(repeating: "x", count: 5000), ""] {
            let r = try await f.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(g)"}]}"#, user: p.memberToken)
            #expect(r.status == 200 && r.json["results"]?.array?.first?.code == "ACCESS_DENIED", "\(r.text.prefix(300))")
        }
        #expect(try await f.call("records/resolve", #"{"shortGUIDs":"x"}"#, user: p.memberToken).json.code == "BAD_REQUEST")
    }

    func page(_ f: APIFixture, _ guid: String, form: String? = nil, origin: String? = nil) async throws -> (Int, String) {
        var req = URLRequest(url: URL(string: "\(f.app.url)share/\(guid)")!)
        if let form {
            req.httpMethod = "POST"
            req.httpBody = Data(form.utf8)
            req.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        if let origin { req.setValue(origin, forHTTPHeaderField: "Origin") }
        let (d, r) = try await f.session.data(for: req)
        return ((r as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: d, as: UTF8.self))
    }

    @Test(arguments: Backend.allCases) func theShareURLSignsInAndAcceptsAndTellsOutsidersNothing(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        let made = try await modify(f, [create("groceries", "List"), #"{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"groceries"},"participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"member@example.com"}},"permission":"READ_WRITE"}]}}"#].joined(separator: ","), user: p.ownerToken)
        let guid = try #require(made.json.records.last?["shortGUID"]?.string, "\(made.text)")
        // Before signing in, a private share shows nothing of its owner or content.
        let (status, html) = try await page(f, guid)
        #expect(status == 200 && html.contains("Sign in and accept") && !html.contains("Owner") && !html.contains("List"), "\(html)")
        // A forged link gets the very same page (its own address aside): a link does not tell whether it exists.
        let forgedGUID = "AAAAAAAAAAAAAAAAAAAAAAAA"
        let (forged, forgedHTML) = try await page(f, forgedGUID)
        #expect(forged == 200 && forgedHTML.replacingOccurrences(of: forgedGUID, with: "G") == html.replacingOccurrences(of: guid, with: "G"))
        #expect(!html.contains(f.container.rawValue), "a private share's page does not name the container")
        #expect(try await page(f, guid, form: "email=member%40example.com&password=correct+horse+battery", origin: "https://evil.example").0 == 403)
        // A wrong password, a share not for this account and a forged link: one answer.
        let wrong = try await page(f, guid, form: "email=member%40example.com&password=wrong-password")
        let outsider = try await page(f, guid, form: "email=outsider%40example.com&password=correct+horse+battery")
        let forgedPost = try await page(f, forgedGUID, form: "email=outsider%40example.com&password=correct+horse+battery")
        #expect(wrong.0 == 404 && outsider.0 == 404 && forgedPost.0 == 404)
        #expect(wrong.1 == outsider.1 && outsider.1 == forgedPost.1 && outsider.1.contains("Not shared with you") && !outsider.1.contains("groceries"))
        let (ok, okHTML) = try await page(f, guid, form: "email=member%40example.com&password=correct+horse+battery")
        #expect(ok == 200 && (okHTML.contains("You joined Owner&#39;s List") || okHTML.contains("You joined Owner's List")), "\(okHTML)")
        let zones = try await f.call("zones/list", db: "shared", user: p.memberToken)
        #expect(zones.json["zones"]?.array?.count == 1, "\(zones.text)")
    }

    /// Participants' zone and database subscriptions in their shared database hear the owner's changes and each
    /// other's, for records their shares cover only; someone whose access ended hears nothing more.
    @Test(arguments: Backend.allCases) func sharedDatabaseSubscriptionsHearChangesInSharedRecords(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        let made = try await modify(f, [create("groceries", "List"), create("private-note"), #"{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"groceries"},"participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(p.member.userRecordName)"}},"permission":"READ_WRITE"}]}}"#].joined(separator: ","), user: p.ownerToken)
        let guid = try #require(made.json.records.last?["shortGUID"]?.string, "\(made.text)")
        _ = try await f.call("records/accept", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.memberToken)
        let subscribed = try await NotificationTests.subscribe(f, #"{"subscriptionID":"shared-db","subscriptionType":"database"}"#, db: "shared", user: p.memberToken)
        #expect(subscribed.json["subscriptions"]?.array?.first?.code == nil, "\(subscribed.text)")
        _ = try await NotificationTests.subscribe(f, #"{"subscriptionID":"lists","subscriptionType":"zone","zoneID":{"zoneName":"Lists","ownerRecordName":"\#(p.owner.userRecordName)"}}"#, db: "shared", user: p.memberToken)
        _ = try await modify(f, [create("milk", parent: "groceries"), create("hidden")].joined(separator: ","), user: p.ownerToken)
        let heard = try NotificationTests.notes(f, p.member.userRecordName)
        let ck = heard.compactMap { $0["ck"] as? [String: Any] }
        #expect(ck.count == 2, "one per subscription, for milk only: \(heard)")
        #expect(ck.allSatisfy { (($0["met"] ?? $0["fet"]) as? [String: Any])?["dbs"] as? Int == 3 }, "\(heard)")
        #expect(ck.compactMap { ($0["fet"] as? [String: Any])?["zoid"] as? String } == [p.owner.userRecordName], "\(heard)")
        let all = String(describing: heard)
        #expect(!all.contains("hidden") && !all.contains("private-note"))
    }

    /// A READ_WRITE participant updates and deletes inside the hierarchy (never outside it), and may leave the share
    /// (deleting the share record in their shared database), which changes nothing for the owner's records.
    @Test(arguments: Backend.allCases) func aWriterUpdatesAndDeletesThenLeaves(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        let zone = #"{"zoneName":"Lists","ownerRecordName":"\#(p.owner.userRecordName)"}"#
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        let made = try await modify(f, [create("root", "List"), create("a", parent: "root"), create("b", parent: "a"), create("outside"),
                                        #"{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(p.member.userRecordName)"}},"permission":"READ_WRITE"}]}}"#].joined(separator: ","), user: p.ownerToken)
        let guid = try #require(made.json.records.last?["shortGUID"]?.string, "\(made.text)")
        _ = try await f.call("records/accept", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.memberToken)
        let tagA = try #require(made.json.records[1]["recordChangeTag"]?.string)
        let wrote = try await modify(f, [#"{"operationType":"update","record":{"recordName":"a","recordType":"Item","recordChangeTag":"\#(tagA)","fields":{"title":{"value":"changed by member"}}}}"#,
                                         #"{"operationType":"forceDelete","record":{"recordName":"b"}}"#].joined(separator: ","),
                                     zone: zone, db: "shared", user: p.memberToken)
        #expect(wrote.json.records.map { $0.code ?? "ok" } == ["ok", "ok"], "\(wrote.text)")
        // (A batch may name a record once, as CloudKit's: the move is a request of its own.)
        let moved = try await modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Item","parent":{"recordName":"outside"}}}"#,
                                     zone: zone, db: "shared", user: p.memberToken)
        #expect(moved.json.records.map { $0.code ?? "ok" } == ["ACCESS_DENIED"], "moving a record out of the share is refused: \(moved.text)")
        let owner = try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"a"},{"recordName":"b"}]}"#, db: "private", user: p.ownerToken)
        #expect(owner.json.records[0]["fields"]?["title"]?["value"]?.string == "changed by member" && owner.json.records[1].code == "NOT_FOUND", "\(owner.text)")
        // Leaving: the share record deleted from the shared database removes only the member.
        let left = try await modify(f, #"{"operationType":"forceDelete","record":{"recordName":"s"}}"#, zone: zone, db: "shared", user: p.memberToken)
        #expect(left.json.records.first?["deleted"]?.bool == true, "\(left.text)")
        #expect(try await f.call("zones/list", db: "shared", user: p.memberToken).json["zones"]?.array?.isEmpty == true)
        let after = try await f.call("records/resolve", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.ownerToken)
        let status = after.json["results"]?.array?.first?["share"]?["participants"]?.array?.map { $0["acceptanceStatus"]?.string ?? "" }
        #expect(status == ["ACCEPTED"], "the owner's share lists only the owner now (the member is REMOVED): \(after.text)")
        #expect(try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"root"}]}"#, db: "private", user: p.ownerToken).json.records.first?["share"] != nil)
    }

    /// A READ_WRITE participant edits what is shared but cannot end the share for everyone (delete its root) or
    /// take a record out of it (clear its parent): both are the owner's.
    @Test(arguments: Backend.allCases) func aWriterCannotEndTheShareOrTakeRecordsOutOfIt(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        let zone = #"{"zoneName":"Lists","ownerRecordName":"\#(p.owner.userRecordName)"}"#
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#, db: "private", user: p.ownerToken)
        let made = try await modify(f, [create("root", "List"), create("a", parent: "root"),
                                        #"{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(p.member.userRecordName)"}},"permission":"READ_WRITE"}]}}"#].joined(separator: ","), user: p.ownerToken)
        let guid = try #require(made.json.records.last?["shortGUID"]?.string, "\(made.text)")
        _ = try await f.call("records/accept", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.memberToken)
        let tried = try await modify(f, [#"{"operationType":"forceDelete","record":{"recordName":"root"}}"#,
                                         #"{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Item","parent":null}}"#].joined(separator: ","),
                                     zone: zone, db: "shared", user: p.memberToken)
        #expect(tried.json.records.map { $0.code ?? "ok" } == ["ACCESS_DENIED", "ACCESS_DENIED"], "\(tried.text)")
        // Nothing changed: the owner still has the root and its share, and the member still sees "a".
        let owner = try await f.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"root"},{"recordName":"a"}]}"#, db: "private", user: p.ownerToken)
        #expect(owner.json.records.first?["share"] != nil && owner.json.records.last?["parent"]?["recordName"]?.string == "root", "\(owner.text)")
        let member = try await f.call("records/lookup", #"{"zoneID":\#(zone),"records":[{"recordName":"a"}]}"#, db: "shared", user: p.memberToken)
        #expect(member.json.records.first?.code == nil)
        // The owner may do both.
        let done = try await modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Item","parent":null}}"#, user: p.ownerToken)
        #expect(done.json.records.first?.code == nil, "\(done.text)")
    }

    /// Every permission × participant status × operation, each in a zone of its own.
    @Test(arguments: Backend.allCases) func permissionsStatusesAndOperations(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let p = try await Self.people(f)
        for permission in ["READ_ONLY", "READ_WRITE"] {
            for status in ["INVITED", "ACCEPTED", "REMOVED"] {
                let zoneName = "Z-\(permission)-\(status)"
                let zone = #"{"zoneName":"\#(zoneName)","ownerRecordName":"\#(p.owner.userRecordName)"}"#
                _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zoneName)"}}}]}"#, db: "private", user: p.ownerToken)
                let made = try await modify(f, [create("root", "List"), create("child", parent: "root"), create("gone", parent: "root"),
                                                #"{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(p.member.userRecordName)"}},"permission":"\#(permission)"}]}}"#].joined(separator: ","),
                                            zone: #"{"zoneName":"\#(zoneName)"}"#, user: p.ownerToken)
                let guid = try #require(made.json.records.last?["shortGUID"]?.string, "\(made.text)")
                if status != "INVITED" { _ = try await f.call("records/accept", #"{"shortGUIDs":["\#(guid)"]}"#, user: p.memberToken) }
                if status == "REMOVED" { _ = try await modify(f, #"{"operationType":"forceDelete","record":{"recordName":"s"}}"#, zone: zone, db: "shared", user: p.memberToken) }
                let what = "\(permission) \(status)"
                let query = try await f.call("records/query", #"{"zoneID":\#(zone),"query":{"recordType":"Item"}}"#, db: "shared", user: p.memberToken)
                let lookup = try await f.call("records/lookup", #"{"zoneID":\#(zone),"records":[{"recordName":"child"}]}"#, db: "shared", user: p.memberToken)
                let writes = try await modify(f, [create("new", parent: "root"), #"{"operationType":"forceUpdate","record":{"recordName":"child","recordType":"Item","fields":{"title":{"value":"x"}}}}"#,
                                                  #"{"operationType":"forceDelete","record":{"recordName":"gone"}}"#].joined(separator: ","), zone: zone, db: "shared", user: p.memberToken)
                if status != "ACCEPTED" {
                    // Writes fail record by record, as CloudKit reports a missing zone to a modify.
                    #expect(query.json.code == "ZONE_NOT_FOUND" && lookup.json.code == "ZONE_NOT_FOUND", "\(what): \(query.text)")
                    #expect(writes.json.records.count == 3 && writes.json.records.allSatisfy { $0.code == "ZONE_NOT_FOUND" }, "\(what): \(writes.text)")
                    continue
                }
                #expect(query.json.names == ["child", "gone"] && lookup.json.records.first?["recordName"]?.string == "child", "\(what): \(query.text)")
                let codes = writes.json.records.map { $0.code ?? "ok" }
                #expect(codes == (permission == "READ_WRITE" ? ["ok", "ok", "ok"] : ["ACCESS_DENIED", "ACCESS_DENIED", "ACCESS_DENIED"]), "\(what): \(writes.text)")
            }
        }
    }
}
