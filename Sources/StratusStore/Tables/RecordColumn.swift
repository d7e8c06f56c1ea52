/// The system columns every record type's table (`t<id>`) starts with, in this order: what
/// `RecordRowCodec.selectList` selects first, so that a record's row is read by these names (`RowStreamer`). The
/// type's fields' columns follow them, in the order the statement lists its fields.
enum RecordColumn: Int, CaseIterable, Sendable {
    case id, zoneID, recordName, changeTag, createdAt, createdBy, createdDevice, modifiedAt, modifiedBy, modifiedDevice

    /// The column's name in the table.
    var name: String {
        switch self {
        case .id: "id"
        case .zoneID: "zone_id"
        case .recordName: "record_name"
        case .changeTag: "change_tag"
        case .createdAt: "created_ts"
        case .createdBy: "created_by"
        case .createdDevice: "created_device"
        case .modifiedAt: "modified_ts"
        case .modifiedBy: "modified_by"
        case .modifiedDevice: "modified_device"
        }
    }

    /// Where the column is in a record's row.
    var position: Int { rawValue }

    /// Where a record's first field is.
    static let firstField = allCases.count
}
