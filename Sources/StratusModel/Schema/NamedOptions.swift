/// An option set whose options have names in the schema language (`QUERYABLE`, `WRITE`, …): one table gives both
/// the names of a set, in the table's order, and the option a name stands for.
public protocol NamedOptions: OptionSet where Element == Self {
    /// Each single option and its name, in the order `names` lists them.
    static var named: [(option: Self, name: String)] { get }
}

extension NamedOptions {
    public var names: [String] { Self.named.filter { contains($0.option) }.map(\.name) }

    public init?(name: String) {
        let upper = name.uppercased()
        guard let match = Self.named.first(where: { $0.name == upper }) else { return nil }
        self = match.option
    }
}
