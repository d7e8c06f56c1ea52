public struct Reference: Hashable, Sendable, Codable {
    public var recordName: String
    public var zoneID: ZoneID?
    public var action: ReferenceAction

    public init(recordName: String, zoneID: ZoneID? = nil, action: ReferenceAction = .none) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }
}
