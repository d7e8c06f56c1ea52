public struct Location: Hashable, Sendable, Codable {
    public var latitude, longitude: Double
    public var horizontalAccuracy, verticalAccuracy, altitude, speed, course: Double?
    /// Milliseconds since 1970, like every CloudKit timestamp.
    public var timestamp: Int64?

    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
                altitude: Double? = nil, speed: Double? = nil, course: Double? = nil, timestamp: Int64? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.altitude = altitude
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }

    /// Great-circle distance in metres (haversine on a sphere of the Earth's mean radius).
    public func distance(to other: Location) -> Double {
        Location.distance(latitude, longitude, other.latitude, other.longitude)
    }

    public static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_008.8
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let dp = (lat2 - lat1) * .pi / 180, dl = (lon2 - lon1) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
