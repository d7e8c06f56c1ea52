import Foundation
import StratusModel

/// Proof that a user uploaded an asset's content in this container environment: an HMAC, under the
/// environment's secret, of the uploader and the content's checksum. A record may take a new asset reference
/// only with such a receipt, so knowing an asset's checksum (which reads of a shared record reveal) is not
/// enough to attach another user's file and download it.
enum AssetReceipt {
    static let kind: UInt8 = 0x41

    static func make(user: String, checksum: String, _ signer: TokenSigner) -> String {
        "r1." + signer.sign(kind: kind, payload(user, checksum))
    }

    static func isValid(_ receipt: String?, user: String, checksum: String, _ signer: TokenSigner) -> Bool {
        guard let receipt, receipt.hasPrefix("r1."),
              let body = try? signer.verify(kind: kind, String(receipt.dropFirst(3)),
                                            what: "receipt") else { return false }
        return body == payload(user, checksum)
    }

    private static func payload(_ user: String,
                                _ checksum: String) -> [UInt8] { Array(user.utf8) + [0] + Array(checksum.utf8) }
}
