/// An asset field's value. The content lives on disk, addressed by `fileChecksum`;
/// the record holds only this description, so assets don't count against the 1 MB record limit.
public struct AssetValue: Hashable, Sendable, Codable {
    /// Base64 of the content's SHA-256.
    public var fileChecksum: String
    public var size: Int64
    public var referenceChecksum, wrappingKey, receipt: String?
    /// Filled in on fetch by whoever serves the bytes; never stored.
    public var downloadURL: String?

    public init(fileChecksum: String, size: Int64, referenceChecksum: String? = nil, wrappingKey: String? = nil,
                receipt: String? = nil, downloadURL: String? = nil) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.referenceChecksum = referenceChecksum
        self.wrappingKey = wrappingKey
        self.receipt = receipt
        self.downloadURL = downloadURL
    }
}
