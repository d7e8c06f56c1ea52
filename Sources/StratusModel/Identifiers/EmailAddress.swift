/// What Stratus takes as an email address: `local@domain` as mail systems write them (RFC 5321's sizes, RFC 5322's
/// dot-atoms, RFC 6531's UTF-8), never a quoted local part, a comment, or a character that means something in HTML,
/// a header or a URL (`" < > ( ) [ ] \ , ; :`, space, controls). Addresses render escaped everywhere; this keeps
/// what they are checked against a small, predictable set.
public enum EmailAddress {
    public static func isValid(_ address: String) -> Bool {
        guard address.utf8.count <= 254 else { return false }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last,
              !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty else { return false }
        return isDotAtom(local, allowed: isLocalByte) && isDotAtom(domain, allowed: isDomainByte)
            && !domain.split(separator: ".").contains { $0.hasPrefix("-") || $0.hasSuffix("-") || $0.utf8.count > 63 }
    }

    /// Atoms of allowed bytes joined by single dots, none at either end.
    private static func isDotAtom(_ s: Substring, allowed: (UInt8) -> Bool) -> Bool {
        !s.hasPrefix(".") && !s.hasSuffix(".") && !s.contains("..") && s.utf8.allSatisfy { $0 == UInt8(ascii: ".") || allowed($0) }
    }

    private static func isLocalByte(_ b: UInt8) -> Bool {
        b >= 0x80 || isAlphanumeric(b) || "!#$%&'*+/=?^_`{|}~-".utf8.contains(b)
    }

    private static func isDomainByte(_ b: UInt8) -> Bool { b >= 0x80 || isAlphanumeric(b) || b == UInt8(ascii: "-") }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
    }
}
