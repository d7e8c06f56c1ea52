/// Why a zone is gone, as CloudKit's framework tells apps (`CKDatabase.DatabaseChange.Deletion.Reason`): the app
/// deleted it, its owner purged the app's data, or its owner reset their encrypted data. Stored as the `deleted`
/// value of the zone's row (0 while it lives).
public enum ZoneDeletionReason: Int, Sendable, Hashable, Codable {
    case deleted = 1
    case purged = 2
    case encryptedDataReset = 3
}
