/// Who changed a record, when and from where: the `created` and `modified` dictionaries.
public struct RecordStamp: Hashable, Sendable, Codable {
    /// Milliseconds since 1970.
    public var timestamp: Int64
    public var userRecordName, deviceID: String

    public init(timestamp: Int64, userRecordName: String, deviceID: String = "iCloud") {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }
}
