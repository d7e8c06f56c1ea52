import Testing
@testable import StratusModel

/// Operation names are spelled once, in `CloudKitOperation`: faults, telemetry and the users/* rule read them there.
@Suite struct CloudKitOperationTests {
    @Test func everyOperationKeepsCloudKitsNameAndItsTelemetryGroup() {
        #expect(CloudKitOperation.allCases.count == 22)
        #expect(Fault.operations == CloudKitOperation.allCases.map(\.rawValue))
        #expect(Fault.operations.contains("records/modify") && Fault.operations.contains("users/lookup/email"))
        let groups: [String: TelemetryOperation] = [
            "records/query": .query, "records/lookup": .lookup, "users/lookup/id": .lookup, "subscriptions/modify": .modify,
            "changes/zone": .changes, "zones/changes": .changes, "assets/upload": .assets, "records/resolve": .other,
            "users/discover": .other, "not/an/operation": .other,
        ]
        for (path, group) in groups { #expect(TelemetryOperation(path: path) == group, "\(path)") }
        #expect(CloudKitOperation.allCases.filter(\.isAboutUsers).map(\.rawValue).allSatisfy { $0.hasPrefix("users/") })
        #expect(CloudKitOperation.allCases.filter { $0.rawValue.hasPrefix("users/") }.allSatisfy { $0.isAboutUsers })
    }
}
