import Crypto
import CryptoExtras
import Foundation

/// Random secrets and how they are kept: tokens as SHA-256 (they are long and random, so a fast hash is
/// enough), passwords as PBKDF2-SHA256 with a per-user salt and 210,000 rounds.
public enum Secrets {
    public static func randomBytes(_ n: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// Lowercase hex; hashed on every authenticated request, so without String(format:).
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func tokenHash(_ token: String) -> String { hex(digest(token)) }

    /// SHA-256 of a string's UTF-8, hashed where the string keeps its bytes: every authenticated request hashes its
    /// tokens, and copying each into a `Data` first cost more than the hash.
    public static func digest(_ text: String) -> SHA256.Digest {
        var hasher = SHA256()
        var text = text
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    static let passwordRounds = 210_000

    static func hashPassword(_ password: String) throws -> String {
        let salt = randomBytes(16)
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: Data(password.utf8), salt: salt, using: .sha256,
                                                    outputByteCount: 32, rounds: passwordRounds)
        return "pbkdf2-sha256$\(passwordRounds)$\(Data(salt).base64EncodedString())$\(key.withUnsafeBytes { Data($0).base64EncodedString() })"
    }

    static func verifyPassword(_ password: String, hash: String) -> Bool {
        let parts = hash.split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds >= 1000,
              let salt = Data(base64Encoded: String(parts[2])), let expected = Data(base64Encoded: String(parts[3])),
              let key = try? KDF.Insecure.PBKDF2.deriveKey(from: Data(password.utf8), salt: salt, using: .sha256,
                                                            outputByteCount: expected.count, rounds: rounds) else { return false }
        let derived = key.withUnsafeBytes { Data($0) }
        // Constant-time comparison.
        return derived.count == expected.count && zip(derived, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension Secrets {
    /// Compares a presented secret with the expected one in time that does not depend on where they differ (hashes
    /// both first, so the length does not show either).
    public static func constantTimeEquals(_ given: String, _ expected: String) -> Bool {
        let a = Array(digest(given)), b = Array(digest(expected))
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// A password nobody will type, for accounts that sign in another way (test users).
    public static func randomPassword() -> String { hex(randomBytes(24)) }

    /// `sha256=<hex HMAC-SHA256 of body under key>`: how a webhook receiver checks a delivery came from us.
    public static func webhookSignature(_ body: Data, secret: String) -> String {
        "sha256=" + hex(HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))))
    }
}
