import Foundation

/// A typed field value. Lists carry their element type; an empty list may not know it (`UNKNOWN_LIST`).
///
/// References, assets and locations are boxed (`indirect`): inline, the largest of them (an asset's five strings,
/// a location's seven numbers) set the size of every value, so each string or number took about 90 bytes and
/// every copy into a record's dictionary or a list moved them all. Boxed, a value is the size of a string.
public enum FieldValue: Hashable, Sendable, Codable {
    case string(String)
    case int64(Int64)
    case double(Double)
    case bytes(Data)
    /// A `Date`'s own value (see `Timestamp`); Web Services' milliseconds are converted at the wire.
    case timestamp(Timestamp)
    indirect case reference(Reference)
    indirect case asset(AssetValue)
    indirect case location(Location)
    case list(ScalarType?, [FieldValue])

    /// The type this value has on its own, when it has one; an untyped empty list has none.
    public var fieldType: FieldType? {
        switch self {
        case .string: FieldType(.string)
        case .int64: FieldType(.int64)
        case .double: FieldType(.double)
        case .bytes: FieldType(.bytes)
        case .timestamp: FieldType(.timestamp)
        case .reference: FieldType(.reference)
        case .asset: FieldType(.asset)
        case .location: FieldType(.location)
        case .list(let t, _): t.map { FieldType($0, isList: true) }
        }
    }

    public var scalarType: ScalarType? {
        switch self {
        case .string: .string
        case .int64: .int64
        case .double: .double
        case .bytes: .bytes
        case .timestamp: .timestamp
        case .reference: .reference
        case .asset: .asset
        case .location: .location
        case .list(let t, _): t
        }
    }

    /// Bytes this value counts against the 1 MB record limit. Assets count only their description.
    public var storageSize: Int {
        switch self {
        case .string(let s): s.utf8.count
        case .int64, .double, .timestamp: 8
        case .bytes(let d): d.count
        case .reference(let r): r.recordName.utf8.count + (r.zoneID?.zoneName.utf8.count ?? 0) + 8
        case .asset(let a): a.fileChecksum.utf8.count + 8
        case .location: 64
        case .list(_, let items): items.reduce(8) { $0 + $1.storageSize }
        }
    }

    /// The asset checksums this value refers to, so the store can count references to stored content.
    public var assetChecksums: [String] {
        switch self {
        case .asset(let a): [a.fileChecksum]
        case .list(_, let items): items.flatMap(\.assetChecksums)
        default: []
        }
    }

    public var assets: [AssetValue] {
        switch self {
        case .asset(let a): [a]
        case .list(_, let items): items.flatMap(\.assets)
        default: []
        }
    }

    /// The same value with asset receipts dropped (they prove an upload once and are never stored).
    public var withoutReceipts: FieldValue {
        switch self {
        case .asset(var a): a.receipt = nil; return .asset(a)
        case .list(let t, let items): return .list(t, items.map(\.withoutReceipts))
        default: return self
        }
    }

    /// Checks the value against a declared type: exact type, homogeneous lists, finite doubles, valid coordinates.
    public func validate(as type: FieldType, field: String) throws(StratusError) {
        if type.isList {
            guard case .list(let elementType, let items) = self else {
                throw .badRequest("field '\(field)' is \(type.wireName) but the value is \(fieldType?.wireName ?? "a list")")
            }
            if let elementType, elementType != type.scalar {
                throw .badRequest("field '\(field)' is \(type.wireName) but the value is \(elementType.wireName)_LIST")
            }
            for item in items {
                if case .list = item { throw .badRequest("field '\(field)': lists cannot contain lists") }
                try item.validate(as: FieldType(type.scalar), field: field)
            }
            return
        }
        guard scalarType == type.scalar, !isList else {
            throw .badRequest("field '\(field)' is \(type.wireName) but the value is \(fieldType?.wireName ?? "UNKNOWN_LIST")")
        }
        switch self {
        case .string(let text) where Self.containsNUL(text):
            // SQLite's text interfaces end a string at NUL: refused rather than acknowledged and stored cut short.
            throw .badRequest("field '\(field)': STRING values cannot contain U+0000 (NUL)")
        case .double(let d) where !d.isFinite:
            throw .badRequest("field '\(field)': DOUBLE values must be finite")
        case .timestamp(let t) where !t.isValid:
            throw .badRequest("field '\(field)': TIMESTAMP values must lie within about 35,000 years of 2001")
        case .location(let l):
            guard l.latitude.isFinite, l.longitude.isFinite, (-90...90).contains(l.latitude), (-180...180).contains(l.longitude) else {
                throw .badRequest("field '\(field)': latitude must be within ±90 and longitude within ±180")
            }
        case .reference(let r):
            try Names.validate(recordName: r.recordName)
        case .asset(let a):
            guard !a.fileChecksum.isEmpty, a.size >= 0 else { throw .badRequest("field '\(field)': asset needs a fileChecksum and a size") }
        default: break
        }
    }

    /// A TIMESTAMP of so many milliseconds since 1970, as Web Services clients write one.
    public static func timestamp(millis: Int64) -> FieldValue { .timestamp(Timestamp(millisSince1970: millis)) }

    public var isList: Bool { if case .list = self { true } else { false } }

    /// Whether a string holds U+0000, found with `memchr` over its UTF-8 (every STRING written is checked, and
    /// the generic `contains` stepped through the bytes one by one).
    static func containsNUL(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { b in
            guard let base = b.baseAddress, b.count > 0 else { return false }
            return memchr(base, 0, b.count) != nil
        } ?? text.utf8.contains(0)
    }
}
