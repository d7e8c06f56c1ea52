import Foundation

/// How large a subscription may be. Apple documents no numbers; these keep one user's subscriptions from filling an
/// environment (each is stored, and matched against every write of its type):
/// - `notificationInfo` (alert texts, sound, `desiredKeys`) at most 4 KB in all, APNs' payload limit;
/// - each of `desiredKeys` at most 255 bytes and a field of the subscription's record type (when the schema has the
///   type; before it does, in Development, a valid field name);
/// - the predicate (the query's filters) at most 8 KB.
public enum SubscriptionLimits {
    public static let notificationInfoBytes = 4096
    public static let keyBytes = 255
    public static let predicateBytes = 8192

    /// Checks `subscription`; `fields(type)` gives a record type's field names (nil when the schema has no such
    /// type), `anyField(name)` whether some type of the schema has the field.
    public static func check(_ subscription: Subscription, fields: (String) -> Set<String>?,
                             anyField: (String) -> Bool) throws(StratusError) {
        let encoder = JSONEncoder()
        let info = (try? encoder.encode(subscription.notificationInfo).count) ?? Int.max
        guard info <= notificationInfoBytes else {
            throw StratusError(.limitExceeded,
                               "notificationInfo is \(info) bytes; at most \(notificationInfoBytes) are allowed, APNs' payload limit")
        }
        if case .query(let type, let filters, _, _, _) = subscription.kind {
            let predicate = (try? encoder.encode(filters).count) ?? Int.max
            guard predicate <= predicateBytes else {
                throw StratusError(.limitExceeded,
                                   "the subscription's predicate is \(predicate) bytes; at most \(predicateBytes) are allowed")
            }
        }
        let known = subscription.recordType.flatMap(fields)
        for key in subscription.notificationInfo.desiredKeys ?? [] {
            guard key.utf8.count <= keyBytes else { throw StratusError.badRequest("a desired key is at most \(keyBytes) bytes") }
            if let known {
                guard known.contains(key) else {
                    throw StratusError.badRequest("desiredKeys names '\(key.prefix(60))', which is not a field of \(subscription.recordType ?? "")")
                }
            } else if subscription.recordType == nil, anyField(key) {
                continue
            } else {
                do { try Names.validate(fieldName: key) } catch {
                    throw StratusError.badRequest("desiredKeys names '\(key.prefix(60))', which is not a field name")
                }
            }
        }
    }
}
