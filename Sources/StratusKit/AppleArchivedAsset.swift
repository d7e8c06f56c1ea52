import Foundation

/// An Apple archive's `CKAsset`: the file it named (`AssetFileURL`), a path on the device that wrote it, which is
/// read back as a `CKAsset` of that URL.
final class AppleArchivedAsset: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let fileURL: URL?

    init?(coder: NSCoder) {
        fileURL = coder.containsValue(forKey: "AssetFileURL") ? (coder.decodeObject(of: NSURL.self,
                forKey: "AssetFileURL") as URL?) : nil
    }

    func encode(with coder: NSCoder) {}
}
