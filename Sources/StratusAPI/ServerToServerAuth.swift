import Crypto
import Foundation
import StratusHTTP
import StratusModel
import StratusStore
import Synchronization

/// Verifies CloudKit's server-to-server signatures: `X-Apple-CloudKit-Request-KeyID`, `…-ISO8601Date` and
/// `…-SignatureV1`, an ECDSA P-256 (DER, base64) signature over `date:base64(sha256(body)):subpath`.
/// CloudKit JS signs the path with its query string, others without: both are accepted. A bodyless request may
/// hash the empty body or leave the hash empty. Dates more than 10 minutes off, and a signature seen before,
/// are refused.
final class ServerToServerAuth: Sendable {
    static let window: Int64 = 10 * 60 * 1000
    /// Signatures already used, with when they may be forgotten (after their date leaves the window).
    private let seen = Mutex<[String: Int64]>([:])

    func verify(_ req: HTTPRequest, store: ServerStore, container: ContainerID,
                environment: ContainerEnvironment) throws(StratusError) -> ServerKey {
        guard let keyID = req.headers["x-apple-cloudkit-request-keyid"], let dateText = req.headers["x-apple-cloudkit-request-iso8601date"],
              let signatureText = req.headers["x-apple-cloudkit-request-signaturev1"] else {
            throw .authenticationFailed("a server-to-server request needs KeyID, ISO8601Date and SignatureV1 headers")
        }
        guard let key = try store.credentials.serverKey(id: keyID) else { throw .authenticationFailed("unknown or revoked server-to-server key") }
        guard key.container == container, key.environment == environment else {
            throw .authenticationFailed("this key belongs to another container or environment")
        }
        guard let date = ServerToServerAuth.parseDate(dateText) else { throw .authenticationFailed("X-Apple-CloudKit-Request-ISO8601Date is not an ISO 8601 date") }
        let now = WallClock.nowMillis()
        guard abs(now - date) <= ServerToServerAuth.window else { throw .authenticationFailed("the request date is more than 10 minutes from the server's clock") }
        guard signatureText.utf8.count <= 256, let der = Data(base64Encoded: signatureText),
              let signature = try? P256.Signing.ECDSASignature(derRepresentation: der),
              let publicKey = try? P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM) else {
            throw .authenticationFailed("X-Apple-CloudKit-Request-SignatureV1 is not a DER ECDSA signature in base64")
        }
        let bodyHash = Data(SHA256.hash(data: req.body)).base64EncodedString()
        var hashes = [bodyHash]
        if req.body.isEmpty { hashes.append("") }
        let paths = [req.target, req.rawPath]
        let valid = hashes.contains { h in
            paths.contains { p in publicKey.isValidSignature(signature, for: Data("\(dateText):\(h):\(p)".utf8)) }
        }
        guard valid else { throw .authenticationFailed("the signature does not verify with this key") }
        let fresh = seen.withLock { seen -> Bool in
            if seen.count > 100_000 { seen = seen.filter { $0.value > now } }
            let k = keyID + signatureText
            if let until = seen[k], until > now { return false }
            seen[k] = date + ServerToServerAuth.window
            return true
        }
        guard fresh else { throw .authenticationFailed("this signature was already used: sign each request anew") }
        return key
    }

    /// `2016-01-25T22:15:43Z`, with or without fractional seconds, to milliseconds (read on bytes: Foundation's
    /// formatters are not given a stranger's header).
    static func parseDate(_ s: String) -> Int64? {
        guard s.utf8.count <= 40, s.utf8.contains(UInt8(ascii: "T")) else { return nil }
        return ISO8601Time.millis(s)
    }
}
