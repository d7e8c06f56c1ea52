import Foundation

#if canImport(CoreLocation)
import CoreLocation
extension CLLocation: CKRecordValueProtocol {}
#else
/// Mirrors CoreLocation's `CLLocationDegrees`, `CLLocationDistance`, `CLLocationAccuracy`, `CLLocationSpeed` and
/// `CLLocationDirection`, where CoreLocation does not exist (Linux): on Apple platforms `import CloudKit` brings
/// CoreLocation's own.
public typealias CLLocationDegrees = Double
public typealias CLLocationDistance = Double
public typealias CLLocationAccuracy = Double
public typealias CLLocationSpeed = Double
public typealias CLLocationDirection = Double

/// Mirrors `CLLocationCoordinate2D`.
public struct CLLocationCoordinate2D: Sendable, Hashable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees
    public init() { (latitude, longitude) = (0, 0) }
    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Mirrors CoreLocation's `CLLocation` where CoreLocation does not exist (Linux), so that code which writes
/// `record["where"] = CLLocation(latitude:longitude:)` builds there as it does with `import CloudKit`: a record's
/// LOCATION value. CloudKit keeps its coordinate, altitude, accuracies, speed, course and timestamp.
public final class CLLocation: NSObject, CKRecordValueProtocol, @unchecked Sendable {
    /// Mirrors `CLLocation.coordinate`.
    public let coordinate: CLLocationCoordinate2D
    /// Mirrors `CLLocation.altitude`.
    public let altitude: CLLocationDistance
    /// Mirrors `CLLocation.horizontalAccuracy`.
    public let horizontalAccuracy: CLLocationAccuracy
    /// Mirrors `CLLocation.verticalAccuracy`.
    public let verticalAccuracy: CLLocationAccuracy
    /// Mirrors `CLLocation.speed`.
    public let speed: CLLocationSpeed
    /// Mirrors `CLLocation.course`.
    public let course: CLLocationDirection
    /// Mirrors `CLLocation.timestamp`.
    public let timestamp: Date

    /// Mirrors `CLLocation(latitude:longitude:)`.
    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0,
                  horizontalAccuracy: 0,
                  verticalAccuracy: -1, course: -1, speed: -1, timestamp: Date())
    }

    /// Mirrors `CLLocation(coordinate:altitude:horizontalAccuracy:verticalAccuracy:timestamp:)`.
    public convenience init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
                            horizontalAccuracy hAccuracy: CLLocationAccuracy,
                            verticalAccuracy vAccuracy: CLLocationAccuracy, timestamp: Date) {
        self.init(coordinate: coordinate, altitude: altitude, horizontalAccuracy: hAccuracy,
                  verticalAccuracy: vAccuracy, course: -1, speed: -1,
                  timestamp: timestamp)
    }

    /// Mirrors `CLLocation(coordinate:altitude:horizontalAccuracy:verticalAccuracy:course:speed:timestamp:)`.
    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance,
                horizontalAccuracy hAccuracy: CLLocationAccuracy,
                verticalAccuracy vAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed, timestamp: Date) {
        self.coordinate = coordinate
        self.altitude = altitude
        horizontalAccuracy = hAccuracy
        verticalAccuracy = vAccuracy
        self.course = course
        self.speed = speed
        self.timestamp = timestamp
    }

    /// Mirrors `CLLocation.distance(from:)`: the great-circle distance in metres.
    public func distance(from location: CLLocation) -> CLLocationDistance {
        let r = 6_371_000.0, rad = Double.pi / 180
        let (a1, a2) = (coordinate, location.coordinate)
        let dLat = (a2.latitude - a1.latitude) * rad, dLon = (a2.longitude - a1.longitude) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a1.latitude * rad) * cos(a2.latitude * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * atan2(h.squareRoot(), (1 - h).squareRoot())
    }

    /// Equal when the coordinates are, as CloudKit compares a record's locations.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let o = object as? CLLocation else { return false }
        return coordinate == o.coordinate
    }

    public override var hash: Int { coordinate.hashValue }

    /// The name StratusKit used before, for code written against it.
    @available(*, deprecated, message: "use coordinate.latitude")
    public var latitude: CLLocationDegrees { coordinate.latitude }
    @available(*, deprecated, message: "use coordinate.longitude")
    public var longitude: CLLocationDegrees { coordinate.longitude }
}
#endif

/// StratusKit's earlier name for a record's LOCATION value. It is not a CloudKit name: CloudKit's is `CLLocation`.
@available(*, deprecated, renamed: "CLLocation")
public typealias CKLocation = CLLocation
