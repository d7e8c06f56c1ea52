import Crypto
import Foundation

/// What an authenticator signs (WebAuthn's authenticator data): the hash of the relying party ID, the flags (user
/// present, user verified, attested credential data), the signature counter, and on registration the new
/// credential's ID and public key (a COSE key).
struct AuthenticatorData: Sendable {
    /// SHA-256 of the relying party ID it was made for.
    let rpIDHash: Data
    /// User present (bit 0), user verified (bit 2), attested credential data (bit 6).
    let flags: UInt8
    /// The authenticator's signature counter (0 for synced passkeys).
    let signCount: UInt32
    /// On registration: the new credential's ID, its public key, and that key's bytes as the authenticator wrote
    /// them (kept, to read again at each sign-in).
    let credential: (id: Data, key: CBOR, keyBytes: Data)?

    var userPresent: Bool { flags & 0x01 != 0 }
    var userVerified: Bool { flags & 0x04 != 0 }

    /// Nil for what is not authenticator data (too short, a credential ID over 1,023 bytes, a key that is not CBOR).
    init?(_ data: Data) {
        let b = [UInt8](data)
        guard b.count >= 37 else { return nil }
        rpIDHash = Data(b[0..<32])
        flags = b[32]
        signCount = b[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        guard flags & 0x40 != 0 else {
            credential = nil
            return
        }
        guard b.count >= 55 else { return nil }
        let length = Int(b[53]) << 8 | Int(b[54])
        guard length <= 1023, b.count >= 55 + length else { return nil }
        let rest = Data(b[(55 + length)...])
        guard let (key, end) = CBOR.decode(rest) else { return nil }
        credential = (Data(b[55..<55 + length]), key, rest.prefix(end))
    }

    /// Whether it was made for this relying party ID.
    func isFor(rpID: String) -> Bool { rpIDHash == Data(SHA256.hash(data: Data(rpID.utf8))) }
}
