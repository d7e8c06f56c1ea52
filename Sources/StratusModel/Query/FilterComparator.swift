/// The 21 query comparators of CloudKit Web Services.
public enum FilterComparator: String, Sendable, CaseIterable, Codable, Hashable {
    case equals = "EQUALS"
    case notEquals = "NOT_EQUALS"
    case lessThan = "LESS_THAN"
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    case near = "NEAR"
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    case `in` = "IN"
    case notIn = "NOT_IN"
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    case listContains = "LIST_CONTAINS"
    case notListContains = "NOT_LIST_CONTAINS"
    case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
    case beginsWith = "BEGINS_WITH"
    case notBeginsWith = "NOT_BEGINS_WITH"
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"
    case listContainsAll = "LIST_CONTAINS_ALL"
    case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
    case listContainsAny = "LIST_CONTAINS_ANY"

    /// The index a filter with this comparator needs in Production.
    public var requiredIndex: FieldIndexes {
        switch self {
        case .containsAllTokens, .containsAnyTokens: .searchable
        case .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .beginsWith, .notBeginsWith: .sortable
        default: .queryable
        }
    }

    /// Comparators whose field must be a list.
    public var needsListField: Bool {
        switch self {
        case .listContains, .notListContains, .notListContainsAny, .listMemberBeginsWith, .notListMemberBeginsWith,
             .listContainsAll, .notListContainsAll, .listContainsAny: true
        default: false
        }
    }

    /// Comparators whose value is a list of candidates.
    public var takesListValue: Bool {
        switch self {
        case .in, .notIn, .notListContainsAny, .listContainsAll, .notListContainsAll, .listContainsAny: true
        default: false
        }
    }
}
