import Foundation

/// Keyed archives written by Apple's CloudKit framework (NSKeyedArchiver on an iPhone or a Mac), which apps moving
/// from CloudKit keep in their local stores: their classes go by Objective-C names (`CKRecord`, `CKRecordID`, …) and
/// their keys by CloudKit's private spelling (`RecordType`, `ETag`, `ValueStore`, …). StratusKit's classes answer to
/// those names once registered here; docs/swift.md says what is read and what is not.
enum AppleArchive {
    private static let registration: Void = {
        let classes: [(String, AnyClass)] = [
            ("CKRecord", CKRecord.self), ("CKRecordID", CKRecordID.self), ("CKRecordZoneID", CKRecordZoneID.self),
            ("CKRecordValueStore", AppleRecordValueStore.self), ("CKEncryptedRecordValueStore",
                                                                 AppleRecordValueStore.self),
            ("CKAsset", AppleArchivedAsset.self),
            // Kept in Apple archives under keys no public material describes: read as nothing rather than refused.
            ("CKReference", AppleUnreadValue.self), ("CLLocation", AppleUnreadValue.self),
        ]
        for (name, cls) in classes { NSKeyedUnarchiver.setClass(cls, forClassName: name) }
    }()

    /// Makes the names known to every keyed unarchiver (once; later calls cost nothing).
    static func register() { _ = registration }

    /// What a value store's values may be, as an archive holds them.
    static let valueClasses: [AnyClass] = [
        NSDictionary.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSArray.self, NSURL.self,
        AppleArchivedAsset.self, AppleUnreadValue.self,
    ]
}
