import Foundation
import StratusJSON

/// Mirrors `CKAsset`: a file kept beside a record. Saving a record uploads the file through `assets/upload`;
/// fetching one downloads it into a local cache, so `fileURL` always names a local file, as with CloudKit.
public final class CKAsset: NSObject, CKRecordValueProtocol, @unchecked Sendable {
    /// Mirrors `CKAsset.fileURL`.
    public let fileURL: URL?
    /// What the server knows of the stored file (its ASSETID value); nil until uploaded or fetched.
    let receipt: WireObject?

    /// Mirrors `CKAsset(fileURL:)`.
    public init(fileURL: URL) {
        self.fileURL = fileURL
        self.receipt = nil
    }

    init(fileURL: URL?, receipt: WireObject) {
        self.fileURL = fileURL
        self.receipt = receipt
    }

    /// The stored file's checksum, once the server has it.
    var fileChecksum: String? { receipt?["fileChecksum"]?.string }

    /// Equal when every identifying part is equal, as with CloudKit.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? CKAsset else { return false }
        if let a = fileChecksum, let b = o.fileChecksum { return a == b }
        return fileURL == o.fileURL
    }

    /// Consistent with `isEqual(_:)`.
    public override var hash: Int { fileChecksum?.hashValue ?? fileURL?.hashValue ?? 0 }
}
