import Crypto
import Foundation
import StratusModel

/// `sign_in_flows` (control database): the web sign-ins with a provider under way (`WebSignIn`), by the hash of
/// their `state`, with the hash of their browser binding; each is taken once, and gone when it expires. Every
/// statement on it is here.
enum SignInFlows {
    enum Column: String, TableColumn {
        case state, container, environment, provider, nonce, verifier, callback, origin, binding, address
        case expiresAt = "expires_at"
    }

    static func digest(_ s: String) -> String {
        SHA256.hash(data: Data(s.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Keeps a sign-in that begins, after forgetting expired ones; false when its address has `perAddress` under
    /// way or the server `total`.
    static func begin(_ f: WebSignIn, perAddress: Int, total: Int, now: Int64, _ s: any SQLSession) throws -> Bool {
        guard try CeremonyBudget.admits("sign_in_flows", address: f.address, perAddress: perAddress, total: total,
                                        now: now, s) else { return false }
        try s.execute("""
            INSERT INTO sign_in_flows(state, container, environment, provider, nonce, verifier, callback, origin, binding,
                                      address, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, digest(f.state), f.container.rawValue, f.environment.rawValue, f.provider, f.nonce, f.verifier,
                      f.callback, f.origin, digest(f.binding), f.address, f.expiresAt)
        return true
    }

    private static let flow = Selection<Column>([.container, .environment, .provider, .nonce, .verifier, .callback,
                                                 .origin, .binding, .address, .expiresAt])

    /// The sign-in of this `state`, taken (it never ends twice), if it has not expired and `binding` is the
    /// browser's that began it; nil otherwise (an unknown or used state, another browser, too late).
    static func take(state: String, binding: String, now: Int64, _ s: any SQLSession) throws -> WebSignIn? {
        try CeremonyBudget.take("sign_in_flows", keyColumn: "state", key: digest(state), columns: flow.sql, now: now, s,
                                expiresAt: \.expiresAt) { r -> WebSignIn? in
            let row = NamedRow(r, flow)
            guard let c = try? ContainerID(row.string(.container) ?? ""),
                  let e = ContainerEnvironment(rawValue: row.string(.environment) ?? ""),
                  row.string(.binding) == digest(binding) else { return nil }
            return WebSignIn(state: state, binding: binding, container: c, environment: e,
                             provider: row.string(.provider) ?? "", nonce: row.string(.nonce) ?? "",
                             verifier: row.string(.verifier) ?? "", callback: row.string(.callback),
                             origin: row.string(.origin), address: row.string(.address) ?? "",
                             expiresAt: row.int64(.expiresAt) ?? 0)
        }
    }
}
