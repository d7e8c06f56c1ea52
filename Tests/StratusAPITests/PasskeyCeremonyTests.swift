import Crypto
import Foundation
import Testing
@testable import StratusAPI
import StratusJSON
import StratusModel

/// WebAuthn's checks, each tried with an answer that fails only it, with a P-256 authenticator made per run; and
/// the CBOR reader with what a hostile authenticator could send.
@Suite struct PasskeyCeremonyTests {
    static let rp = PasskeyCeremony.RelyingParty(id: "localhost", origin: "http://localhost:8080")

    /// A minimal CBOR writer for the tests' authenticator (maps with integer or text keys, byte and text strings).
    enum Write {
        static func head(_ major: UInt8, _ n: Int) -> Data {
            switch n {
            case 0..<24: return Data([major << 5 | UInt8(n)])
            case 24..<256: return Data([major << 5 | 24, UInt8(n)])
            default: return Data([major << 5 | 25, UInt8(n >> 8), UInt8(n & 0xff)])
            }
        }
        static func int(_ v: Int) -> Data { v >= 0 ? head(0, v) : head(1, -1 - v) }
        static func bytes(_ d: Data) -> Data { head(2, d.count) + d }
        static func text(_ s: String) -> Data { head(3, s.utf8.count) + Data(s.utf8) }
        static func map(_ pairs: [(Data, Data)]) -> Data { pairs.reduce(head(5, pairs.count)) { $0 + $1.0 + $1.1 } }
    }

    /// An authenticator holding one P-256 passkey.
    struct Authenticator {
        let key = P256.Signing.PrivateKey()
        let credentialID = Data((0..<16).map { _ in UInt8.random(in: 0...255) })

        var coseKey: Data {
            let raw = key.publicKey.rawRepresentation
            return Write.map([(Write.int(1), Write.int(2)), (Write.int(3), Write.int(-7)), (Write.int(-1), Write.int(1)),
                              (Write.int(-2), Write.bytes(raw.prefix(32))), (Write.int(-3), Write.bytes(raw.suffix(32)))])
        }

        func authData(rpID: String = "localhost", flags: UInt8 = 0x05, count: UInt32, attested: Bool = false) -> Data {
            var d = Data(SHA256.hash(data: Data(rpID.utf8))) + Data([attested ? flags | 0x40 : flags])
            d += Data([UInt8(count >> 24), UInt8(count >> 16 & 0xff), UInt8(count >> 8 & 0xff), UInt8(count & 0xff)])
            if attested { d += Data(count: 16) + Data([0, UInt8(credentialID.count)]) + credentialID + coseKey }
            return d
        }

        static func clientData(_ type: String, challenge: String = "c", origin: String = rp.origin) -> Data {
            Data(JSON.object(["type": .string(type), "challenge": .string(challenge), "origin": .string(origin)]).serialized.utf8)
        }

        func attestation(_ authData: Data) -> Data {
            Write.map([(Write.text("fmt"), Write.text("none")), (Write.text("attStmt"), Write.map([])),
                       (Write.text("authData"), Write.bytes(authData))])
        }

        func signature(_ authData: Data, _ clientData: Data) -> Data {
            try! key.signature(for: authData + Data(SHA256.hash(data: clientData))).derRepresentation
        }
    }

    @Test func aRegistrationAndASignInPass() throws {
        let a = Authenticator()
        #expect(try PasskeyCeremony.challenge(Authenticator.clientData("webauthn.create", challenge: "abc"), type: "webauthn.create", Self.rp) == "abc")
        let credential = try PasskeyCeremony.register(attestationObject: a.attestation(a.authData(count: 0, attested: true)), Self.rp)
        #expect(credential.id == a.credentialID && credential.signCount == 0)
        let data = a.authData(count: 7), client = Authenticator.clientData("webauthn.get")
        #expect(try PasskeyCeremony.signIn(clientDataJSON: client, authenticatorData: data, signature: a.signature(data, client),
                                           publicKey: credential.publicKey, storedCount: 3, Self.rp) == 7)
    }

    /// Synced passkeys always count 0; an authenticator that counts must count up.
    @Test(arguments: [(UInt32(0), UInt32(0), true), (0, 1, true), (5, 6, true), (5, 5, false), (5, 4, false), (5, 0, false), (0, 0, true)])
    func theCounterIsRefusedOnlyWhenItWentBack(_ c: (stored: UInt32, received: UInt32, passes: Bool)) throws {
        let a = Authenticator()
        let data = a.authData(count: c.received), client = Authenticator.clientData("webauthn.get")
        let result = Result { try PasskeyCeremony.signIn(clientDataJSON: client, authenticatorData: data, signature: a.signature(data, client),
                                                         publicKey: a.coseKey, storedCount: c.stored, Self.rp) }
        #expect(((try? result.get()) != nil) == c.passes, "\(c)")
    }

    @Test(arguments: ["type", "origin", "rp", "no user verification", "no user presence", "signature", "other key", "truncated"])
    func eachBadAnswerIsRefusedForWhatIsWrong(_ bad: String) throws {
        let a = Authenticator(), other = Authenticator()
        var client = Authenticator.clientData("webauthn.get"), data = a.authData(count: 1)
        var key = a.coseKey
        switch bad {
        case "type": client = Authenticator.clientData("webauthn.create")
        case "origin": client = Authenticator.clientData("webauthn.get", origin: "http://evil.example")
        case "rp": data = a.authData(rpID: "evil.example", count: 1)
        case "no user verification": data = a.authData(flags: 0x01, count: 1)
        case "no user presence": data = a.authData(flags: 0x04, count: 1)
        case "other key": key = other.coseKey
        case "truncated": data = data.prefix(20)
        default: break
        }
        var signature = a.signature(data, client)
        if bad == "signature" { signature[signature.count - 1] ^= 1 }
        #expect(throws: StratusError.self, "\(bad) was accepted") {
            _ = try PasskeyCeremony.challenge(client, type: "webauthn.get", Self.rp)
            _ = try PasskeyCeremony.signIn(clientDataJSON: client, authenticatorData: data, signature: signature, publicKey: key,
                                           storedCount: 0, Self.rp)
        }
    }

    @Test func aRegistrationWithAnotherKindOfKeyIsRefused() {
        let a = Authenticator()
        var auth = a.authData(count: 0, attested: true)
        // The same key, said to be for EdDSA (-8): a key kind Stratus does not verify with.
        auth = auth.prefix(auth.count - a.coseKey.count) + Write.map([(Write.int(1), Write.int(1)), (Write.int(3), Write.int(-8)),
                                                                      (Write.int(-1), Write.int(6)), (Write.int(-2), Write.bytes(Data(count: 32)))])
        #expect(throws: StratusError.self) { try PasskeyCeremony.register(attestationObject: a.attestation(auth), Self.rp) }
        #expect(throws: StratusError.self) { try PasskeyCeremony.register(attestationObject: Data([0xa1, 0x63]), Self.rp) }
    }

    /// What a hostile authenticator could write: lengths past the data, maps and arrays claiming more items than
    /// bytes, nesting past the limit, indefinite lengths, repeated keys. None is read, none allocates its claim.
    @Test(arguments: [
        [0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0xbb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0x5f, 0x41, 0x00, 0xff], [0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x00],
        [0xa2, 0x01, 0x02, 0x01, 0x03], [0x63, 0xff, 0xfe, 0xfd], [0x1c], [], [0x19, 0x01],
    ] as [[UInt8]])
    func hostileCBORIsNotRead(_ bytes: [UInt8]) {
        #expect(CBOR.decode(Data(bytes)) == nil)
    }

    @Test func cborReadsWhatWebAuthnWrites() throws {
        let (item, end) = try #require(CBOR.decode(Write.map([(Write.int(-7), Write.text("x")), (Write.text("k"), Write.bytes(Data([1, 2])))]) + Data([0xff])))
        #expect(item[-7]?.string == "x" && item["k"]?.data == Data([1, 2]) && end == 9)
        #expect(CBOR.decode(Data([0x3b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))?.item.int == nil, "-2^64 is no Int64")
        #expect(CBOR.decode(Data([0x3b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))?.item.int == Int64.min)
    }
}
