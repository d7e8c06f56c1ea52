/// A record's system fields with their text borrowed from storage's row buffer: valid only during the
/// `RecordSink` call that receives it. A sink that copies text onward (JSON) takes it without a String
/// being made and freed for every name, tag and user of every record.
public struct BorrowedRecordHeader {
    public var recordName: UnsafeBufferPointer<UInt8>
    public var recordType: String
    public var zoneID: ZoneID
    public var recordChangeTag: UnsafeBufferPointer<UInt8>
    public var createdTimestamp: Int64
    public var createdBy, createdDevice: UnsafeBufferPointer<UInt8>
    public var modifiedTimestamp: Int64
    public var modifiedBy, modifiedDevice: UnsafeBufferPointer<UInt8>

    public init(recordName: UnsafeBufferPointer<UInt8>, recordType: String, zoneID: ZoneID,
                recordChangeTag: UnsafeBufferPointer<UInt8>,
                createdTimestamp: Int64, createdBy: UnsafeBufferPointer<UInt8>, createdDevice: UnsafeBufferPointer<UInt8>,
                modifiedTimestamp: Int64, modifiedBy: UnsafeBufferPointer<UInt8>, modifiedDevice: UnsafeBufferPointer<UInt8>) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneID = zoneID
        self.recordChangeTag = recordChangeTag
        self.createdTimestamp = createdTimestamp
        self.createdBy = createdBy
        self.createdDevice = createdDevice
        self.modifiedTimestamp = modifiedTimestamp
        self.modifiedBy = modifiedBy
        self.modifiedDevice = modifiedDevice
    }

    /// The same header with its own Strings.
    public var owned: RecordHeader {
        func s(_ b: UnsafeBufferPointer<UInt8>) -> String { String(decoding: b, as: UTF8.self) }
        return RecordHeader(recordName: s(recordName), recordType: recordType, zoneID: zoneID,
                            recordChangeTag: s(recordChangeTag),
                            created: RecordStamp(timestamp: createdTimestamp, userRecordName: s(createdBy),
                                                 deviceID: s(createdDevice)),
                            modified: RecordStamp(timestamp: modifiedTimestamp, userRecordName: s(modifiedBy),
                                                  deviceID: s(modifiedDevice)))
    }
}
