/// A token of the schema language with where it starts, for error messages.
struct SchemaToken: Equatable {
    enum Kind: Equatable {
        case word(String)
        /// A double-quoted identifier: never a keyword.
        case quoted(String)
        case symbol(Character)
        case end
    }
    var kind: Kind
    var line, column: Int

    /// Unquoted word compared case-insensitively against a keyword.
    func isKeyword(_ k: String) -> Bool {
        if case .word(let w) = kind { return w.caseInsensitiveCompare(k) == .orderedSame }
        return false
    }

    var isEnd: Bool { kind == .end }

    var display: String {
        switch kind {
        case .word(let w): "'\(w)'"
        case .quoted(let q): "\"\(q)\""
        case .symbol(let c): "'\(c)'"
        case .end: "end of file"
        }
    }
}

import Foundation
