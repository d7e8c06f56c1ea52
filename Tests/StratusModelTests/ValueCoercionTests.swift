import Foundation
import StratusModel
import Testing

/// What a saved value becomes in its field, value by value.
@Suite struct ValueCoercionTests {
    /// (value sent, the field's type, what is stored; nil: stored as sent).
    static let widened: [(FieldValue, FieldType, FieldValue?)] = [
        (.int64(3), FieldType(.int64), nil),
        (.int64(3), FieldType(.double), .double(3)),
        (.int64(1_700_000_000_123), FieldType(.timestamp), .timestamp(Timestamp(millisSince1970: 1_700_000_000_123))),
        (.double(1_700_000_000_123.9), FieldType(.timestamp), .timestamp(Timestamp(millisSince1970: 1_700_000_000_123))),
        (.double(-1.9), FieldType(.timestamp), .timestamp(Timestamp(millisSince1970: -1))),
        (.string("aGk="), FieldType(.bytes), .bytes(Data("hi".utf8))),
        (.list(.int64, [.int64(1), .int64(2)]), FieldType(.double, isList: true), .list(.double, [.double(1), .double(2)])),
        (.list(nil, []), FieldType(.string, isList: true), .list(.string, [])),
        (.list(.string, [.string("a")]), FieldType(.string, isList: true), nil),
        (.string("x"), FieldType(.string), nil),
    ]

    @Test(arguments: widened)
    func valuesAreStoredAsTheirFieldHoldsThem(_ value: FieldValue, _ type: FieldType, _ stored: FieldValue?) throws {
        #expect(try ValueCoercion.coercion(value, to: type, field: "f", recordName: "r") == stored)
    }

    /// Values a field cannot hold: refused, naming the record.
    static let refused: [(FieldValue, FieldType)] = [
        (.string("not base64!"), FieldType(.bytes)),
        (.double(.infinity), FieldType(.timestamp)),
        (.double(1e19), FieldType(.timestamp)),
        (.string("3"), FieldType(.int64)),
        (.double(1.5), FieldType(.int64)),
        (.int64(1), FieldType(.int64, isList: true)),
        (.list(.string, [.string("a")]), FieldType(.int64, isList: true)),
    ]

    @Test(arguments: refused)
    func aValueItsFieldCannotHoldIsABadRequest(_ value: FieldValue, _ type: FieldType) {
        #expect {
            _ = try ValueCoercion.coercion(value, to: type, field: "f", recordName: "r")
        } throws: { error in
            (error as? StratusError)?.code == .badRequest && (error as? StratusError)?.recordName == "r"
        }
    }
}
