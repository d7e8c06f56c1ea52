/// Splits `.ckdb` text into tokens, skipping `//`, `--` and `/* */` comments.
struct SchemaLexer {
    static func tokens(_ text: String) throws(SchemaSyntaxError) -> [SchemaToken] {
        let s = Array(text.unicodeScalars)
        var out: [SchemaToken] = []
        var i = 0, line = 1, col = 1
        func advance() { if s[i] == "\n" { line += 1; col = 1 } else { col += 1 }; i += 1 }
        while i < s.count {
            let c = s[i]
            if c == "\n" || c == " " || c == "\t" || c == "\r" { advance(); continue }
            if c == "/" && i + 1 < s.count && s[i + 1] == "/" || c == "-" && i + 1 < s.count && s[i + 1] == "-" {
                while i < s.count && s[i] != "\n" { advance() }
                continue
            }
            if c == "/" && i + 1 < s.count && s[i + 1] == "*" {
                let (l0, c0) = (line, col)
                advance(); advance()
                while i < s.count && !(s[i] == "*" && i + 1 < s.count && s[i + 1] == "/") { advance() }
                guard i < s.count else { throw SchemaSyntaxError(line: l0, column: c0,
                                                                 message: "unterminated comment") }
                advance(); advance()
                continue
            }
            let (l0, c0) = (line, col)
            if c == "\"" {
                advance()
                var name = ""
                while i < s.count && s[i] != "\"" && s[i] != "\n" { name.unicodeScalars.append(s[i]); advance() }
                guard i < s.count, s[i] == "\"" else { throw SchemaSyntaxError(line: l0, column: c0,
                        message: "unterminated quoted name") }
                advance()
                out.append(SchemaToken(kind: .quoted(name), line: l0, column: c0))
                continue
            }
            if c.properties.isAlphabetic && c.isASCII || c == "_" || ("0"..."9").contains(c) {
                var word = ""
                while i < s.count, s[i].isASCII, s[i].properties.isAlphabetic || s[i] == "_" || ("0"..."9").contains(s[i]) {
                    word.unicodeScalars.append(s[i]); advance()
                }
                out.append(SchemaToken(kind: .word(word), line: l0, column: c0))
                continue
            }
            if "(),;<>".unicodeScalars.contains(c) {
                out.append(SchemaToken(kind: .symbol(Character(c)), line: l0, column: c0))
                advance()
                continue
            }
            throw SchemaSyntaxError(line: l0, column: c0, message: "unexpected character '\(c)'")
        }
        out.append(SchemaToken(kind: .end, line: line, column: col))
        return out
    }
}
