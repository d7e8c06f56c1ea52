/// Who performs a change: their user record name and device, stamped onto records.
public struct RequestActor: Sendable, Hashable {
    public var userRecordName, deviceID: String

    public init(userRecordName: String, deviceID: String = "iCloud") {
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }

    /// Changes made by Stratus itself (demo data, benchmarks, the CLI).
    public static let system = RequestActor(userRecordName: "_system", deviceID: "stratus")
}
