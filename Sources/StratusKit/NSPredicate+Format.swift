import Foundation
import Synchronization

#if !canImport(Darwin)
/// `NSPredicate(format:)` on Linux, where Foundation declares it unavailable: the format and its arguments are kept
/// beside the predicate (`PredicateFormats`) and read by `CKQuery` and `CKQuerySubscription` with StratusKit's own
/// parser of CloudKit's predicate grammar, so the same app source builds on Apple platforms and on Linux. Such a
/// predicate cannot be evaluated locally (`evaluate(with:)` answers true); CloudKit's predicates are for the server.
extension NSPredicate {
    /// Mirrors `NSPredicate(format:_:)`.
    public convenience init(format predicateFormat: String, _ args: CVarArg...) {
        self.init(value: true)
        PredicateFormats.shared.keep(self, format: predicateFormat, arguments: args.map { $0 as Any })
    }

    /// Mirrors `NSPredicate(format:argumentArray:)`.
    public convenience init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        self.init(value: true)
        PredicateFormats.shared.keep(self, format: predicateFormat, arguments: arguments ?? [])
    }
}
#endif

/// The format strings and arguments of predicates made with `NSPredicate(format:)` on Linux, by predicate.
final class PredicateFormats: Sendable {
    static let shared = PredicateFormats()

    private struct Kept: @unchecked Sendable {
        weak var predicate: NSPredicate?
        var format: String
        var arguments: [Any]
    }
    private let kept = Mutex<[ObjectIdentifier: Kept]>([:])

    func keep(_ predicate: NSPredicate, format: String, arguments: [Any]) {
        kept.withLock { k in
            if k.count > 10_000 { k = k.filter { $0.value.predicate != nil } }
            k[ObjectIdentifier(predicate)] = Kept(predicate: predicate, format: format, arguments: arguments)
        }
    }

    /// The format and arguments `predicate` was made with, if it was made from a format here.
    func format(of predicate: NSPredicate) -> (String, [Any])? {
        kept.withLock { k in
            guard let found = k[ObjectIdentifier(predicate)], found.predicate === predicate else { return nil }
            return (found.format, found.arguments)
        }
    }

    /// Predicate arguments as record values: `NSNumber`s, strings, dates, references and record IDs, locations, lists.
    static func values(_ arguments: [Any]) -> [any CKRecordValueProtocol]? {
        var out: [any CKRecordValueProtocol] = []
        for a in arguments {
            if let id = a as? CKRecord.ID { out.append(CKRecord.Reference(recordID: id, action: .none)); continue }
            if let record = a as? CKRecord { out.append(CKRecord.Reference(recordID: record.recordID,
                    action: .none)); continue }
            // Foundation's reference types, as Objective-C code and `as NSDate` casts pass them.
            if let d = a as? NSDate { out.append(Date(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)); continue }
            if let s = a as? NSString { out.append(String(describing: s)); continue }
            if let list = (a as? NSArray).map({ $0.map { $0 } }) ?? (a as? [Any]) {
                guard let inner = values(list) else { return nil }
                out.append(inner)
                continue
            }
            guard let v = a as? any CKRecordValueProtocol else { return nil }
            out.append(v)
        }
        return out
    }
}

#if !canImport(Darwin)
/// On Apple platforms every `NSObject` is a `CVarArg`, so `NSPredicate(format: "place == %@", location)` compiles; on
/// Linux these are made so too. Their encoding is the object's address; StratusKit's `NSPredicate(format:)` reads the
/// arguments as the values they are and never hands them to C.
private protocol ObjectArgument: AnyObject, CVarArg {}
extension ObjectArgument {
    public var _cVarArgEncoding: [Int] { [Int(bitPattern: Unmanaged.passUnretained(self).toOpaque())] }
}
extension NSNumber: @retroactive CVarArg, ObjectArgument {}
extension NSDate: @retroactive CVarArg, ObjectArgument {}
extension NSArray: @retroactive CVarArg, ObjectArgument {}
extension CLLocation: CVarArg, ObjectArgument {}
extension CKRecord.Reference: CVarArg, ObjectArgument {}
extension CKRecord.ID: CVarArg, ObjectArgument {}
extension CKRecord: CVarArg, ObjectArgument {}
#endif
