import Crypto
import Foundation
import StratusStore
import StratusModel
import Synchronization

/// Upload tickets and download URLs for asset content. Tickets are single-use and live 15 minutes (CloudKit's
/// upload URL lifetime); download URLs carry an HMAC of what they grant and when it ends, under a key made per
/// server process, so they cannot be forged or stretched.
final class AssetURLs: Sendable {
    struct Ticket: Sendable {
        var container: ContainerID
        var environment: Environment
        /// Who asked for the upload URL: the receipt the upload returns is theirs.
        var user: String
        var expiresAt: Int64
    }
    private let tickets = Mutex<[String: Ticket]>([:])
    private let key = SymmetricKey(size: .bits256)
    static let uploadLifetime: Int64 = 15 * 60 * 1000
    static let downloadLifetime: Int64 = 60 * 60 * 1000

    func makeTicket(container: ContainerID, environment: Environment, user: String, now: Int64) -> String {
        let id = Secrets.hex(Secrets.randomBytes(32))
        tickets.withLock { t in
            if t.count > 10_000 { t = t.filter { $0.value.expiresAt > now } }
            t[id] = Ticket(container: container, environment: environment, user: user, expiresAt: now + AssetURLs.uploadLifetime)
        }
        return id
    }

    /// Takes a ticket (it can be used once).
    func redeem(_ id: String, now: Int64) -> Ticket? {
        tickets.withLock { t in
            guard let ticket = t.removeValue(forKey: id), ticket.expiresAt > now else { return nil }
            return ticket
        }
    }

    func signature(_ container: ContainerID, _ environment: Environment, _ hex: String, _ expires: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(container.rawValue)|\(environment.rawValue)|\(hex)|\(expires)".utf8), using: key)
        return Secrets.hex(Data(mac).prefix(16))
    }

    func downloadPath(_ container: ContainerID, _ environment: Environment, checksum: String, now: Int64) -> String? {
        guard let d = Data(base64Encoded: checksum), d.count == 32 else { return nil }
        let hex = Secrets.hex(d)
        let expires = now + AssetURLs.downloadLifetime
        return "/-/assets/\(container.rawValue)/\(environment.rawValue)/\(hex)?e=\(expires)&s=\(signature(container, environment, hex, expires))"
    }
}
