// `import CloudKit` makes Foundation available, and an app's files that import only CloudKit use `Date`, `UUID`,
// `Data` and `NSPredicate` freely: `import StratusKit` does the same (and, on Linux, FoundationNetworking, where
// `URLSession` lives).
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
