// This file imports StratusKit and nothing of Foundation, as an app's file imports only CloudKit: Date, UUID, Data
// and NSPredicate(format:) must come with it.
import StratusKit
import Testing

/// What an app's CloudKit code does with nothing but `import CloudKit` (here `import StratusKit`): Foundation's types,
/// and `NSPredicate(format:)` with every specifier NSPredicate takes, queried on a real server.
@Suite struct OnlyStratusKitTests {
    @Test func foundationComesWithStratusKitAndFormatPredicatesQuery() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().publicCloudDatabase
        let id = UUID()
        let when = Date(timeIntervalSince1970: 1_700_000_000.5)
        var saved: [CKRecord] = []
        for (i, servings) in [2, 4, 6].enumerated() {
            let r = CKRecord(recordType: "Recipe", recordID: CKRecord.ID(recordName: "recipe-\(i)-\(id.uuidString)"))
            r["servings"] = servings
            r["rating"] = Double(servings) / 2
            r["name"] = "dish \(i)"
            r["at"] = when
            r["photo"] = Data([1, 2, 3])
            r["place"] = CLLocation(latitude: 48.85 + Double(i), longitude: 2.35)
            saved.append(try await db.save(r))
        }
        func names(_ predicate: NSPredicate) async throws -> [String] {
            let (matches, _) = try await db.records(matching: CKQuery(recordType: "Recipe", predicate: predicate))
            return try matches.map { try $0.1.get()["name"] as? String ?? "" }.sorted()
        }
        #expect(try await names(NSPredicate(format: "servings > %d", 3)) == ["dish 1", "dish 2"])
        #expect(try await names(NSPredicate(format: "servings >= %i AND servings < %ld", 2, 6)) == ["dish 0", "dish 1"])
        #expect(try await names(NSPredicate(format: "servings == %lld", Int64(6))) == ["dish 2"])
        #expect(try await names(NSPredicate(format: "servings <= %u", 2)) == ["dish 0"])
        #expect(try await names(NSPredicate(format: "rating > %f", 1.5)) == ["dish 1", "dish 2"])
        #expect(try await names(NSPredicate(format: "rating < %lf", 2.5)) == ["dish 0", "dish 1"])
        #expect(try await names(NSPredicate(format: "rating == %g", 3.0)) == ["dish 2"])
        #expect(try await names(NSPredicate(format: "name == %s", "dish 1")) == ["dish 1"])
        #expect(try await names(NSPredicate(format: "%K == %@", "servings", NSNumber(value: 4))) == ["dish 1"])
        #expect(try await names(NSPredicate(format: "name IN %@", argumentArray: [["dish 0", "dish 2"]])) == ["dish 0", "dish 2"])
        #expect(try await names(NSPredicate(format: "distanceToLocation:fromLocation:(place, %@) < %f", CLLocation(latitude: 48.85, longitude: 2.35), 50.0)) == ["dish 0"])
        #expect(try await names(NSPredicate(value: true)).count == 3)
        // A predicate CloudKit does not take fails the query as CloudKit fails it.
        await #expect(throws: CKError.self) { _ = try await names(NSPredicate(format: "servings > %d OR servings < %d", 1, 2)) }
        #expect(saved.count == 3)
    }
}
