import Foundation

/// Mirrors CloudKit's `CKRecordValueProtocol`: the types a record field holds — `String`, `Int`/`Int64` and the
/// other integers, `Double`, `Bool`, `Date`, `Data`, `CKRecord.Reference`, `CKAsset`, `CLLocation` and arrays of
/// them, and the Foundation classes Apple names (`NSString`, `NSNumber`, `NSArray`, `NSDate`, `NSData`). Numbers read
/// back from the server are `NSNumber`s, so `as? Int`, `as? Int64`,
/// `as? Double` and (for 0 and 1) `as? Bool` all work, as they do with CloudKit.
public protocol CKRecordValueProtocol {}

/// Mirrors CloudKit's `CKRecordValue` spelling.
public typealias CKRecordValue = CKRecordValueProtocol

extension String: CKRecordValueProtocol {}
extension Int: CKRecordValueProtocol {}
extension Int8: CKRecordValueProtocol {}
extension Int16: CKRecordValueProtocol {}
extension Int32: CKRecordValueProtocol {}
extension Int64: CKRecordValueProtocol {}
extension UInt: CKRecordValueProtocol {}
extension UInt8: CKRecordValueProtocol {}
extension UInt16: CKRecordValueProtocol {}
extension UInt32: CKRecordValueProtocol {}
extension UInt64: CKRecordValueProtocol {}
extension Double: CKRecordValueProtocol {}
extension Float: CKRecordValueProtocol {}
extension Bool: CKRecordValueProtocol {}
extension Date: CKRecordValueProtocol {}
extension Data: CKRecordValueProtocol {}
extension NSNumber: CKRecordValueProtocol {}
extension NSString: CKRecordValueProtocol {}
// Any list, so lists read back (`[any CKRecordValueProtocol]`) are values too; elements that are not record values
// are left out when sent.
extension Array: CKRecordValueProtocol {}
// The Foundation classes Apple lists as adopting the protocol; they bridge to the Swift values above when sent.
extension NSArray: CKRecordValueProtocol {}
extension NSData: CKRecordValueProtocol {}
extension NSDate: CKRecordValueProtocol {}
