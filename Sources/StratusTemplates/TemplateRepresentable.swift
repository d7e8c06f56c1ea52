/// A view that gives its template value itself instead of through `Encodable`: for the small structs a page draws
/// by the hundred (a record's fields, their values and inputs), where encoding each through `Encoder` took a
/// container box, an encoder and a generic call per member. Its value must be what `TemplateEncoder` would make of
/// it through `Encodable` (`TemplateEncoder.encodeByCoding`), and each conforming type's test says so.
public protocol TemplateRepresentable: Encodable {
    var templateValue: TemplateValue { get }
}

extension TemplateValue {
    /// An object of `members` in order, the nil ones left out (as `TemplateEncoder` leaves out nil members).
    public static func named(_ members: KeyValuePairs<String, TemplateValue?>) -> TemplateValue {
        var entries = ContiguousArray<TemplateObject.Entry>()
        entries.reserveCapacity(members.count)
        for (name, value) in members {
            guard let value else { continue }
            entries.append(TemplateObject.Entry(name, value))
        }
        return .object(TemplateObject(entries: entries))
    }

    /// The value of any view member, as `TemplateEncoder` makes it.
    public static func of<T: Encodable>(_ value: T) -> TemplateValue? { TemplateEncoder.child(value, coding: false) }
}
