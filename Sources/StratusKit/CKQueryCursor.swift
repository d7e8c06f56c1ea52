import Foundation
import StratusJSON

extension CKQueryOperation {
    /// Mirrors `CKQueryOperation.Cursor`.
    public typealias Cursor = CKQueryCursor
}

/// Mirrors `CKQueryOperation.Cursor` (`CKQueryCursor`, its Objective-C name): where a query's next page starts. It
/// remembers the query and zone, so `records(continuingMatchFrom:)` needs nothing else.
public final class CKQueryCursor: NSObject, NSSecureCoding, @unchecked Sendable {
        let marker: String
        let query: CKQuery
        let zoneID: CKRecordZone.ID?

        init(marker: String, query: CKQuery, zoneID: CKRecordZone.ID?) {
            self.marker = marker
            self.query = query
            self.zoneID = zoneID
        }

        /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
        public static var supportsSecureCoding: Bool { true }

        /// What a keyed archive keeps of it (NSCoding).
        public func encode(with coder: NSCoder) {
            coder.encode(marker as NSString, forKey: "marker")
            coder.encode(query.recordType as NSString, forKey: "recordType")
            if let q = try? query.wireQuery() { coder.encode(JSON(q).encoded as NSData, forKey: "query") }
            if let z = zoneID { coder.encode(z, forKey: "zoneID") }
        }

        /// Reads what `encode(with:)` wrote; nil for a damaged archive.
        public init?(coder: NSCoder) {
            guard let m = coder.optionalObject(of: NSString.self, forKey: "marker"),
                  let data = coder.optionalObject(of: NSData.self, forKey: "query"),
                  let q = JSON(parsing: data as Data)?.object,
                  let query = CKQuery(wire: q) else { return nil }
            marker = m as String
            self.query = query
            zoneID = coder.optionalObject(of: CKRecordZone.ID.self, forKey: "zoneID")
        }
}

extension CKQuery {
    /// Mirrors `CKQuery.Cursor`.
    public typealias Cursor = CKQueryOperation.Cursor
}
