/// Short GUIDs: the random part of a share's URL. 24 characters of [0-9A-Za-z] (about 143 bits), so a URL
/// cannot be guessed; CloudKit's own are of the same alphabet.
enum ShortGUID {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        return String(decoding: (0..<24).map { _ in alphabet[Int(rng.next(upperBound: UInt64(alphabet.count)))] },
                      as: UTF8.self)
    }

    /// Whether `s` could be one (a cheap refusal of forged or oversized input before any lookup).
    static func isWellFormed(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        return bytes.count == 24 && bytes.allSatisfy { alphabet.contains($0) }
    }
}
