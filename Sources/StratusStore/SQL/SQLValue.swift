import Foundation

/// A value bound to or read from a statement, on either backend.
enum SQLValue: Sendable, Hashable {
    case null
    case int64(Int64)
    case double(Double)
    case text(String)
    case blob(Data)

    var isNull: Bool { if case .null = self { true } else { false } }
}

/// Values that bind as statement arguments.
protocol SQLBindable { var sqlValue: SQLValue { get } }
extension Int64: SQLBindable { var sqlValue: SQLValue { .int64(self) } }
extension Int: SQLBindable { var sqlValue: SQLValue { .int64(Int64(self)) } }
extension Double: SQLBindable { var sqlValue: SQLValue { .double(self) } }
extension String: SQLBindable { var sqlValue: SQLValue { .text(self) } }
extension Data: SQLBindable { var sqlValue: SQLValue { .blob(self) } }
extension Bool: SQLBindable { var sqlValue: SQLValue { .int64(self ? 1 : 0) } }
extension Optional: SQLBindable where Wrapped: SQLBindable { var sqlValue: SQLValue { self?.sqlValue ?? .null } }
extension SQLValue: SQLBindable { var sqlValue: SQLValue { self } }
