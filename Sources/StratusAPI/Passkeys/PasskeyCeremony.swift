import Crypto
import Foundation
import StratusJSON
import StratusModel

/// WebAuthn's two ceremonies, checked as the relying party must (Web Authentication Level 3, §7): the client data
/// of the right type, from the public origin exactly; authenticator data for the relying party ID (the host of the
/// public URL, never a request's Host), with the user present and verified; on registration a P-256 (ES256) or
/// RSA (RS256) key, any attestation statement accepted unverified (Stratus asks for none and trusts none); on
/// sign-in the signature under the stored key, and the counter: refused only when the stored or the received one is
/// not zero and the received one is not greater (synced passkeys always say 0; a copied authenticator says a
/// number already seen). Every refusal is AUTHENTICATION_FAILED, saying which check failed.
package enum PasskeyCeremony {
    /// What the ceremonies are checked against.
    package struct RelyingParty: Sendable {
        package let id: String
        package let origin: String

        /// The relying party of a public URL: its host is the ID, its origin the one passkeys may answer.
        package init?(publicURL: String?) {
            guard let publicURL, let host = URL(string: publicURL)?.host else { return nil }
            (id, origin) = (host, publicURL)
        }

        init(id: String, origin: String) { (self.id, self.origin) = (id, origin) }
    }

    /// A new passkey, as registered.
    package struct Credential: Sendable {
        package let id: Data
        package let publicKey: Data
        package let signCount: UInt32
    }

    /// The challenge the client data answers (base64url, to find its ceremony by), once its type and origin are
    /// checked.
    package static func challenge(_ clientDataJSON: Data, type: String,
                                  _ rp: RelyingParty) throws(StratusError) -> String {
        guard let data = try? JSON.parse(clientDataJSON), data["type"]?.string == type else {
            let what = type == "webauthn.create" ? "registration" : "sign-in"
            throw refusal("the browser's answer is not a passkey \(what)")
        }
        guard data["origin"]?.string == rp.origin else { throw refusal("the passkey answered another site") }
        guard let challenge = data["challenge"]?.string,
                !challenge.isEmpty else { throw refusal("the passkey answered no challenge") }
        return challenge
    }

    /// A registration's new credential, from its attestation object.
    package static func register(attestationObject: Data, _ rp: RelyingParty) throws(StratusError) -> Credential {
        guard let (object, _) = CBOR.decode(attestationObject), object["fmt"]?.string != nil,
              let raw = object["authData"]?.data, let auth = AuthenticatorData(raw) else {
            throw refusal("the passkey's attestation is not one")
        }
        try check(auth, rp)
        guard let credential = auth.credential, !credential.id.isEmpty, IdentityKey(cose: credential.key) != nil else {
            throw refusal("the passkey's key is not ES256 on P-256 or RS256 of 2048 bits or more")
        }
        return Credential(id: credential.id, publicKey: credential.keyBytes, signCount: auth.signCount)
    }

    /// A sign-in's new counter, once its signature verifies under the stored key and its counter moved on.
    package static func signIn(clientDataJSON: Data, authenticatorData: Data, signature: Data, publicKey: Data,
                       storedCount: UInt32, _ rp: RelyingParty) throws(StratusError) -> UInt32 {
        guard let auth = AuthenticatorData(authenticatorData) else { throw refusal("the passkey's answer is not one") }
        try check(auth, rp)
        guard let (cose, _) = CBOR.decode(publicKey), let key = IdentityKey(cose: cose),
              key.verifiesAssertion(signature, of: authenticatorData + Data(SHA256.hash(data: clientDataJSON))) else {
            throw refusal("the passkey's signature does not verify")
        }
        if (storedCount != 0 || auth.signCount != 0) && auth.signCount <= storedCount {
            throw refusal("this passkey's counter went back: it may be a copy of the one registered")
        }
        return auth.signCount
    }

    private static func check(_ auth: AuthenticatorData, _ rp: RelyingParty) throws(StratusError) {
        guard auth.isFor(rpID: rp.id) else { throw refusal("the passkey is for another site") }
        guard auth.userPresent, auth.userVerified else { throw refusal("the passkey did not verify its user") }
    }

    private static func refusal(_ reason: String) -> StratusError { .authenticationFailed(reason) }
}
