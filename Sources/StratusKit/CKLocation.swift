import Foundation

/// Stands in for `CLLocation` where CoreLocation does not exist (Linux): a record's LOCATION value. On Apple
/// platforms `CLLocation` is accepted and returned as well. Only CloudKit's stored parts are kept: coordinates,
/// accuracies, altitude, speed, course and timestamp.
public final class CKLocation: NSObject, CKRecordValueProtocol, @unchecked Sendable {
    /// Mirrors `CKLocation.latitude`.
    public let latitude: Double
    /// Mirrors `CKLocation.longitude`.
    public let longitude: Double
    /// Mirrors `CKLocation.altitude`.
    public let altitude: Double
    /// Mirrors `CKLocation.horizontalAccuracy`.
    public let horizontalAccuracy: Double
    /// Mirrors `CKLocation.verticalAccuracy`.
    public let verticalAccuracy: Double
    /// Mirrors `CKLocation.speed`.
    public let speed: Double
    /// Mirrors `CKLocation.course`.
    public let course: Double
    /// Mirrors `CKLocation.timestamp`.
    public let timestamp: Date

    /// Mirrors `CKLocation()`.
    public init(latitude: Double, longitude: Double, altitude: Double = 0, horizontalAccuracy: Double = 0, verticalAccuracy: Double = -1,
                speed: Double = -1, course: Double = -1, timestamp: Date = Date()) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }

    /// Great-circle distance in metres, as `CLLocation.distance(from:)`.
    public func distance(from other: CKLocation) -> Double {
        let r = 6_371_000.0, rad = Double.pi / 180
        let dLat = (other.latitude - latitude) * rad, dLon = (other.longitude - longitude) * rad
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(latitude * rad) * cos(other.latitude * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    /// Equal when every identifying part is equal, as with CloudKit.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? CKLocation else { return false }
        return latitude == o.latitude && longitude == o.longitude
    }

    /// Consistent with `isEqual(_:)`.
    public override var hash: Int { latitude.hashValue ^ longitude.hashValue }
}

#if canImport(CoreLocation)
import CoreLocation
extension CLLocation: CKRecordValueProtocol {}
#endif
