import Foundation

#if canImport(Darwin)
extension NSSortDescriptor {
    /// The key a query sorts on.
    var stratusKey: String? { key }
}
#else
/// Foundation on Linux has no key-value coding, so `NSSortDescriptor(key:ascending:)` does not exist there.
/// StratusKit adds it back for CloudKit's queries: the key is remembered beside the descriptor (by identity,
/// checked against a weak reference so a reused address never inherits another's key).
enum SortKeys {
    final class Entry {
        weak var descriptor: NSSortDescriptor?
        let key: String
        init(_ d: NSSortDescriptor, _ key: String) { descriptor = d; self.key = key }
    }
    nonisolated(unsafe) static var entries: [ObjectIdentifier: Entry] = [:]
    static let lock = NSLock()

    static func remember(_ key: String, for d: NSSortDescriptor) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count > 4096 { entries = entries.filter { $0.value.descriptor != nil } }
        entries[ObjectIdentifier(d)] = Entry(d, key)
    }

    static func key(of d: NSSortDescriptor) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard let e = entries[ObjectIdentifier(d)], e.descriptor === d else { return nil }
        return e.key
    }
}

extension NSSortDescriptor {
    /// Mirrors `NSSortDescriptor(key:ascending:)` for CloudKit queries on Linux.
    public convenience init(key: String?, ascending: Bool) {
        self.init(keyPath: \NSObject.hash, ascending: ascending)
        if let key { SortKeys.remember(key, for: self) }
    }

    /// The key a query sorts on.
    var stratusKey: String? { SortKeys.key(of: self) }
}
#endif
