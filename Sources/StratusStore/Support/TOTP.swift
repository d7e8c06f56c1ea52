import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1 of the 30-second time step, six
/// digits, as every authenticator app computes them; secrets travel in base32 (RFC 4648) in `otpauth://` URIs.
public enum TOTP {
    public static let period: Int64 = 30, digits = 6

    /// The time step of `millis` (milliseconds since 1970).
    public static func step(at millis: Int64) -> Int64 { millis / 1000 / period }

    /// The code of `step`.
    public static func code(secret: Data, step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        return String(repeating: "0", count: digits - String(value).count) + String(value)
    }

    /// The step of `step - 1 … step + 1` whose code `code` is, if any (a clock a step off either way is allowed).
    public static func matchingStep(_ code: String, secret: Data, around step: Int64) -> Int64? {
        let code = code.filter { !$0.isWhitespace }
        guard code.count == digits, code.allSatisfy(\.isASCIIDigit) else { return nil }
        return (step - 1...step + 1).first { candidate in
            Secrets.constantTimeEquals(Self.code(secret: secret, step: candidate), code)
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    public static func base32(_ data: Data) -> String {
        var out = "", buffer = 0, bits = 0
        for byte in data {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return out
    }

    public static func base32Decoded(_ text: String) -> Data? {
        var out = Data(), buffer = 0, bits = 0
        for ch in text.uppercased() where ch != "=" {
            guard let value = alphabet.firstIndex(of: ch) else { return nil }
            buffer = ((buffer << 5) | value) & 0xffff
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return out
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
