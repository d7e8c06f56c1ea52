import Crypto
import Foundation
import StratusModel

/// Makes opaque, tamper-evident strings (sync tokens, continuation markers): a payload and a truncated
/// HMAC-SHA256 under the environment's secret, base64url-encoded. Garbage or edits fail verification.
struct TokenSigner: Sendable {
    let key: SymmetricKey

    /// HMAC keyed once: a copy of it continues from the hashed key, so signing a marker does not key it again.
    private let keyed: HMAC<SHA256>

    init(secret: Data) {
        key = SymmetricKey(data: secret)
        keyed = HMAC<SHA256>(key: key)
    }

    private func code(_ bytes: [UInt8]) -> HMAC<SHA256>.MAC {
        var h = keyed
        h.update(data: bytes)
        return h.finalize()
    }

    /// A number derived from the secret for `purpose` (it reveals nothing of the secret).
    func derived(_ purpose: String) -> UInt64 {
        HMAC<SHA256>.authenticationCode(for: Data(purpose.utf8),
                                        using: key).withUnsafeBytes { b in b.prefix(8).reduce(0) { $0 << 8 | UInt64($1) } }
    }

    /// The web auth token `token` rotates to: 32 bytes derived from it under the secret (base64, as tokens are).
    /// Nobody without the secret can work it out from an old token, and asking twice gives the same one.
    func successor(of token: String) -> String {
        Data(code(Array("web auth token successor\u{0}".utf8) + Array(token.utf8))).base64EncodedString()
    }

    /// A short tag of `bytes` under the secret (16 bytes), for signatures that travel beside their data.
    func tag(_ bytes: [UInt8]) -> [UInt8] { Array(code(bytes).prefix(16)) }

    func sign(kind: UInt8, _ payload: [UInt8]) -> String {
        let body = [kind] + payload
        let mac = code(body)
        return Base64URL.encode(body + Array(mac.prefix(12)))
    }

    func verify(kind: UInt8, _ token: String, what: String) throws(StratusError) -> [UInt8] {
        guard token.utf8.count <= 4096, let bytes = Base64URL.decode(token), bytes.count > 13 else {
            throw .badRequest("\(what) is not valid")
        }
        let body = Array(bytes[..<(bytes.count - 12)]), mac = bytes[(bytes.count - 12)...]
        let expected = code(body)
        // Compared in constant time: how far a forged tag matched must not show in how long refusing it took.
        let difference = zip(expected.prefix(12), mac).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
        guard difference == 0, body[0] == kind else { throw .badRequest("\(what) is not valid") }
        return Array(body.dropFirst())
    }
}

/// Builds and reads the binary payloads inside tokens.
struct TokenPayload {
    var bytes: [UInt8] = []
    var offset = 0

    init() {}
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func put(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func put(_ d: Double) { put(Int64(bitPattern: d.bitPattern)) }
    mutating func put(_ data: [UInt8]) { put(Int64(data.count)); bytes.append(contentsOf: data) }

    mutating func int() -> Int64? {
        guard offset + 8 <= bytes.count else { return nil }
        var v: Int64 = 0
        withUnsafeMutableBytes(of: &v) { $0.copyBytes(from: bytes[offset..<offset + 8]) }
        offset += 8
        return Int64(littleEndian: v)
    }
    mutating func double() -> Double? { int().map { Double(bitPattern: UInt64(bitPattern: $0)) } }
    mutating func data() -> [UInt8]? {
        guard let n = int(), n >= 0, n <= Int64(bytes.count - offset) else { return nil }
        defer { offset += Int(n) }
        return Array(bytes[offset..<offset + Int(n)])
    }
    var atEnd: Bool { offset == bytes.count }
}
