import Foundation

extension CKShare {
    /// Mirrors `CKShare.SystemFieldKey`: the share record's own fields, which the server keeps and returns as any
    /// record's (`share[CKShare.SystemFieldKey.title] = "Trip to Lisbon"`).
    public enum SystemFieldKey {
        /// Mirrors `CKShare.SystemFieldKey.title`: a string shown with the share.
        public static let title: CKRecord.FieldKey = "cloudkit.title"
        /// Mirrors `CKShare.SystemFieldKey.thumbnailImageData`: image data shown with the share.
        public static let thumbnailImageData: CKRecord.FieldKey = "cloudkit.thumbnailImageData"
        /// Mirrors `CKShare.SystemFieldKey.shareType`: a UTI naming what is shared.
        public static let shareType: CKRecord.FieldKey = "cloudkit.type"
    }
}
