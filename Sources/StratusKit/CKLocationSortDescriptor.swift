import Foundation

/// Mirrors `CKLocationSortDescriptor`: sorts by distance from a location.
public final class CKLocationSortDescriptor: NSSortDescriptor, @unchecked Sendable {
    /// Mirrors `CKLocationSortDescriptor.relativeLocation`.
    public let relativeLocation: CLLocation

    /// Mirrors `CKLocationSortDescriptor(key:relativeLocation:)`.
    public init(key: String, relativeLocation: CLLocation) {
        self.relativeLocation = relativeLocation
        #if canImport(Darwin)
        super.init(key: key, ascending: true, selector: nil)
        #else
        super.init(keyPath: \NSObject.hash, ascending: true)
        SortKeys.remember(key, for: self)
        #endif
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive.
    public required init?(coder: NSCoder) { nil }
}
