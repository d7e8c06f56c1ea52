import Foundation
import StratusModel
import StratusTemplates

/// Typed inputs for a record's fields, and the values read back from a submitted form. Every field of the type
/// is on the form; a blank input leaves the field without a value, a cleared list item removes that item.
/// Names: `v:FIELD` (repeated for list items), `lat:`/`lon:` for locations, `action:` for references,
/// `keep:` for assets (which the console keeps or removes; uploading is the API's job).
enum RecordForm {
    /// One field's inputs (`record-inputs.mustache`): its items (a blank one to add a value), and the `kind_…` flag
    /// of its scalar type that picks the input.
    struct Input: Encodable, TemplateRepresentable {
        let name, type: String
        let isList: Bool
        let items: [Item]
        var encrypted, hasValue: Bool?
        var summary: String?
        let kind: ScalarType?

        enum Keys: String, CodingKey { case name, type, isList, items, encrypted, hasValue, summary }
        struct KindKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(name, forKey: .name)
            try c.encode(type, forKey: .type)
            try c.encode(isList, forKey: .isList)
            try c.encode(items, forKey: .items)
            try c.encodeIfPresent(encrypted, forKey: .encrypted)
            try c.encodeIfPresent(hasValue, forKey: .hasValue)
            try c.encodeIfPresent(summary, forKey: .summary)
            if let kind {
                var k = encoder.container(keyedBy: KindKey.self)
                try k.encode(true, forKey: KindKey(stringValue: "kind_" + RecordForm.kind(kind)))
            }
        }

        /// Drawn by hand (a record page has one per field, see `TemplateRepresentable`), as `encode(to:)` does.
        var templateValue: TemplateValue {
            var entries: ContiguousArray<TemplateObject.Entry> = [
                .init("name", .string(name)), .init("type", .string(type)), .init("isList", .bool(isList)),
                .init("items", .list(items.map(\.templateValue))),
            ]
            entries.reserveCapacity(8)
            if let encrypted { entries.append(.init("encrypted", .bool(encrypted))) }
            if let hasValue { entries.append(.init("hasValue", .bool(hasValue))) }
            if let summary { entries.append(.init("summary", .string(summary))) }
            if let kind { entries.append(.init("kind_" + RecordForm.kind(kind), .bool(true))) }
            return .object(TemplateObject(entries: entries))
        }
    }

    /// One value's input.
    struct Item: Encodable, TemplateRepresentable {
        var value: String?
        var deleteSelf: Bool?
        var lat, lon: String?
        var index = 0

        var templateValue: TemplateValue {
            .named(["value": value.map(TemplateValue.string), "deleteSelf": deleteSelf.map(TemplateValue.bool),
                    "lat": lat.map(TemplateValue.string), "lon": lon.map(TemplateValue.string),
                    "index": .string(String(index))])
        }
    }

    static func inputs(for type: RecordTypeSchema, record: StoredRecord?) -> [Input] {
        type.userFields.map { f in
            let value = record?.fields[f.name]
            // Only the app can read an encrypted value: the form shows that there is one and keeps it.
            if f.type.encrypted {
                return Input(name: f.name, type: f.type.description, isList: false, items: [], encrypted: true, hasValue: value != nil, kind: nil)
            }
            let values: [FieldValue] = if case .list(_, let xs)? = value { xs } else { value.map { [$0] } ?? [] }
            var rows = values.map { item(f.type.scalar, $0) }
            // A blank row to add a value (for a scalar: the value itself when there is none).
            if f.type.isList || rows.isEmpty { rows.append(item(f.type.scalar, nil)) }
            for i in rows.indices { rows[i].index = i }
            var input = Input(name: f.name, type: f.type.description, isList: f.type.isList, items: rows, kind: f.type.scalar)
            if f.type.scalar == .asset { input.hasValue = value != nil; input.summary = value.map(ValueDisplay.summary) ?? "" }
            return input
        }
    }

    static func kind(_ s: ScalarType) -> String {
        switch s {
        case .string: "text"
        case .int64: "int"
        case .double: "double"
        case .timestamp: "timestamp"
        case .bytes: "bytes"
        case .reference: "reference"
        case .location: "location"
        case .asset: "asset"
        }
    }

    static func item(_ s: ScalarType, _ v: FieldValue?) -> Item {
        switch v {
        case .string(let x)?: Item(value: x)
        case .int64(let x)?: Item(value: String(x))
        case .double(let x)?: Item(value: String(x))
        case .timestamp(let t)?: Item(value: inputTimestamp(t.millisSince1970))
        case .bytes(let d)?: Item(value: d.base64EncodedString())
        case .reference(let r)?: Item(value: r.recordName, deleteSelf: r.action == .deleteSelf)
        case .location(let l)?: Item(lat: String(l.latitude), lon: String(l.longitude))
        default: Item(value: "")
        }
    }

    static func inputTimestamp(_ millis: Int64) -> String { CivilTime(millis).text(separator: "T") }

    /// A timestamp typed by a person: `2026-11-21T10:30[:15[.250]]` (UTC, as the form says), with an optional
    /// `Z`, or milliseconds since 1970.
    static func parseTimestamp(_ s: String) -> Int64? {
        let t = s.trimmingCharacters(in: .whitespaces)
        if let millis = Int64(t) { return millis }
        return ISO8601Time.millis(t)
    }

    /// The fields a submitted form describes. Client mistakes are BAD_REQUEST naming the field.
    static func fields(from items: [(name: String, value: String)], type: RecordTypeSchema, existing: StoredRecord?)
        throws(StratusError) -> RecordFields {
        let byName = Dictionary(grouping: items, by: \.name).mapValues { $0.map(\.value) }
        var out = RecordFields()
        for f in type.userFields {
            if f.type.encrypted {
                if let v = existing?.fields[f.name] { out[f.name] = v }
                continue
            }
            if f.type.scalar == .asset {
                if byName["keep:" + f.name] != nil, let v = existing?.fields[f.name] { out[f.name] = v }
                continue
            }
            var values: [FieldValue] = []
            if f.type.scalar == .location {
                let lats = byName["lat:" + f.name] ?? [], lons = byName["lon:" + f.name] ?? []
                for (lat, lon) in zip(lats, lons) {
                    let a = lat.trimmingCharacters(in: .whitespaces), b = lon.trimmingCharacters(in: .whitespaces)
                    if a.isEmpty && b.isEmpty { continue }
                    guard let la = Double(a), let lo = Double(b), (-90...90).contains(la), (-180...180).contains(lo) else {
                        throw .badRequest("\(f.name): a location needs a latitude (-90…90) and a longitude (-180…180)")
                    }
                    values.append(.location(Location(latitude: la, longitude: lo)))
                }
            } else {
                let raw = byName["v:" + f.name] ?? []
                let deleteSelf = Set((byName["action:" + f.name] ?? []).compactMap(Int.init))
                let before: [FieldValue] = switch existing?.fields[f.name] {
                case .list(_, let xs)?: xs
                case let v?: [v]
                case nil: []
                }
                for (i, text) in raw.enumerated() {
                    let isString = f.type.scalar == .string
                    if (isString ? text : text.trimmingCharacters(in: .whitespacesAndNewlines)).isEmpty { continue }
                    // A browser sends every line break of a textarea as CRLF: a text the admin left as it was comes
                    // back as the stored value, not as the browser's spelling of it.
                    if isString, i < before.count, case .string(let old) = before[i], submittedSpelling(old) == text {
                        values.append(before[i])
                        continue
                    }
                    // The form shows a timestamp to the millisecond; one left as it was keeps the `Date` it holds.
                    if i < before.count, case .timestamp(let old) = before[i],
                       inputTimestamp(old.millisSince1970) == text.trimmingCharacters(in: .whitespacesAndNewlines) {
                        values.append(before[i])
                        continue
                    }
                    values.append(try scalar(text, f.type.scalar, field: f.name, deleteSelf: deleteSelf.contains(i)))
                }
            }
            if f.type.isList {
                if !values.isEmpty { out[f.name] = .list(f.type.scalar, values) }
            } else if values.count > 1 {
                throw .badRequest("\(f.name) holds one value, not \(values.count)")
            } else if let v = values.first {
                out[f.name] = v
            }
        }
        return out
    }

    /// How a browser submits a textarea that shows `text`: every line break (CR, LF or CRLF) as CRLF.
    static func submittedSpelling(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 10 || $0 == 13 }) else { return text }
        var out = "", scalars = text.unicodeScalars[...]
        while let c = scalars.popFirst() {
            if c == "\r" {
                if scalars.first == "\n" { scalars.removeFirst() }
                out += "\r\n"
            } else if c == "\n" {
                out += "\r\n"
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func scalar(_ text: String, _ s: ScalarType, field: String, deleteSelf: Bool) throws(StratusError) -> FieldValue {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch s {
        case .string: return .string(text)
        case .int64:
            guard let i = Int64(t) else { throw .badRequest("\(field): '\(t.prefix(40))' is not a whole number") }
            return .int64(i)
        case .double:
            guard let d = Double(t), d.isFinite else { throw .badRequest("\(field): '\(t.prefix(40))' is not a number") }
            return .double(d)
        case .timestamp:
            guard let m = parseTimestamp(t), Timestamp.validMillis.contains(m) else {
                throw .badRequest("\(field): '\(t.prefix(40))' is not a date and time (YYYY-MM-DDTHH:MM:SS, UTC)")
            }
            return .timestamp(Timestamp(millisSince1970: m))
        case .bytes:
            guard let d = Data(base64Encoded: t.filter { !$0.isWhitespace }) else { throw .badRequest("\(field): bytes are entered as base64") }
            return .bytes(d)
        case .reference:
            return .reference(Reference(recordName: t, action: deleteSelf ? .deleteSelf : .none))
        case .location, .asset:
            throw .badRequest("\(field): not editable as text")
        }
    }
}
