import Crypto
import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// APNs devices and keys behave alike on SQLite and PostgreSQL: a token moves to whoever registers it last and
/// hears only what comes next, a user keeps a bounded number, one server at a time claims a device, and the key
/// is checked before it is kept.
@Suite struct APNsDeviceTests {
    @Test(arguments: Backend.allCases) func devicesAreRegisteredClaimedOnceAndBounded(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Devices")
            try store.createContainer(c)
            let env = try store.environment(c, .development)
            let token = String(repeating: "ab", count: 32)
            #expect(try !env.apns.hasAPNsDevices())
            try env.apns.registerAPNsDevice(token: token.uppercased(), user: "_alice", apnsEnvironment: .development)
            #expect(try env.apns.apnsDevices().map(\.token) == [token] && env.apns.hasAPNsDevices())
            // The same device signed in as someone else: it is theirs now, from now on.
            try env.apns.registerAPNsDevice(token: token, user: "_bob", apnsEnvironment: .production)
            let moved = try env.apns.apnsDevices()
            #expect(moved.count == 1 && moved[0].userRecordName == "_bob" && moved[0].apnsEnvironment == .production)
            expectError(.badRequest) { try env.apns.registerAPNsDevice(token: "zz", user: "_bob", apnsEnvironment: .development) }

            // One server claims; a second claim within the lease gets nothing; finishing moves the position on and lets go.
            #expect(try env.apns.claimAPNsDevices([token]) == [token])
            #expect(try env.apns.claimAPNsDevices([token]).isEmpty)
            try env.apns.finishAPNsDevices([token], delivered: [token: 42])
            #expect(try env.apns.apnsDevices().first?.deliveredThrough == 42)
            #expect(try env.apns.claimAPNsDevices([token]) == [token])
            try env.apns.finishAPNsDevices([token], delivered: [token: 7])
            #expect(try env.apns.apnsDevices().first?.deliveredThrough == 42, "a position never moves back")

            // A user registering device after device keeps the newest few.
            for i in 0..<(APNsDeviceStore.maximumAPNsDevicesPerUser + 3) {
                try env.apns.registerAPNsDevice(token: String(format: "%064x", i + 1), user: "_carol", apnsEnvironment: .development)
            }
            #expect(try env.apns.apnsDevices(user: "_carol").count == APNsDeviceStore.maximumAPNsDevicesPerUser)

            // Deliveries: one row per device and notification, updated by retries.
            let first = APNsDelivery(id: 0, token: token, userRecordName: "_bob", notificationID: "n1", state: .retrying, status: 429,
                                     reason: "TooManyRequests", apnsID: nil, attempts: 1, at: 1)
            var second = first
            second.state = .sent
            second.status = 200
            second.attempts = 2
            try env.apns.recordAPNsDeliveries([first])
            try env.apns.recordAPNsDeliveries([second])
            let kept = try env.apns.apnsDeliveries()
            #expect(kept.count == 1 && kept[0].state == .sent && kept[0].attempts == 2)
            try env.apns.removeAPNsDevice(token: token)
            #expect(try env.apns.apnsDevices(user: "_bob").isEmpty)
        }
    }

    @Test(arguments: Backend.allCases) func theAPNsKeyIsCheckedKeptAndRemoved(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Keys")
            try store.createContainer(c)
            let pem = P256.Signing.PrivateKey().pemRepresentation
            expectError(.badRequest) { try store.credentials.setAPNsCredentials(container: c, environment: .production, privateKeyPEM: "nope", keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.example.app") }
            expectError(.badRequest) { try store.credentials.setAPNsCredentials(container: c, environment: .production, privateKeyPEM: pem, keyID: "ABC", teamID: "TEAM123456", topic: "com.example.app") }
            expectError(.badRequest) { try store.credentials.setAPNsCredentials(container: c, environment: .production, privateKeyPEM: pem, keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com example") }
            let saved = try store.credentials.setAPNsCredentials(container: c, environment: .production, privateKeyPEM: pem, keyID: "abc123defg", teamID: "TEAM123456", topic: "com.example.app")
            #expect(saved.keyID == "ABC123DEFG" && !saved.description.contains("PRIVATE"))
            #expect(try store.credentials.apnsCredentials(container: c, environment: .production) == saved)
            #expect(try store.credentials.apnsCredentials(container: c, environment: .development) == nil)
            #expect(try store.credentials.allAPNsCredentials().count == 1)
            try store.credentials.removeAPNsCredentials(container: c, environment: .production)
            expectError(.notFound) { try store.credentials.removeAPNsCredentials(container: c, environment: .production) }
        }
    }
}
