import Foundation
import Testing
@testable import StratusModel
@testable import StratusStore

/// SQLite's location index finds candidates by cell ranges (`GeoCell.cover`): a point inside the box whose cell
/// no range holds would be missing from a near query's answer.
@Suite struct GeoCellTests {
    @Test func everyPointOfABoxLiesInItsCover() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let lat = Double.random(in: -90...90, using: &rng), lon = Double.random(in: -180...180, using: &rng)
            let h = [0.0, 1e-7, 0.001, 0.1, 3, 40].randomElement(using: &rng)!, w = [0.0, 1e-7, 0.002, 0.2, 7, 120].randomElement(using: &rng)!
            let box = (min(90, lat), min(90, lat + h), lon, min(180, lon + w))
            let maxCells = [1, 8, 16].randomElement(using: &rng)!
            let cover = GeoCell.cover(minLatitude: box.0, maxLatitude: box.1, minLongitude: box.2, maxLongitude: box.3, maxCells: maxCells)
            #expect(!cover.isEmpty && cover.count <= maxCells)
            for (a, b) in zip(cover, cover.dropFirst()) { #expect(a.upperBound + 1 < b.lowerBound, "ranges sorted, apart") }
            // Corners, edges and random points inside.
            var points = [(box.0, box.2), (box.0, box.3), (box.1, box.2), (box.1, box.3)]
            for _ in 0..<20 { points.append((Double.random(in: box.0...box.1, using: &rng), Double.random(in: box.2...box.3, using: &rng))) }
            for (plat, plon) in points {
                let c = GeoCell.cell(latitude: plat, longitude: plon)
                #expect(cover.contains { $0.contains(c) }, "(\(plat), \(plon)) outside the cover of \(box)")
            }
        }
    }

    @Test func aSmallBoxCoversLittleMoreThanItself() {
        // Ten kilometres around Paris: the cover's cells, at most 16, span at most a few times the box.
        let box = (48.76, 48.94, 2.21, 2.49)
        let cover = GeoCell.cover(minLatitude: box.0, maxLatitude: box.1, minLongitude: box.2, maxLongitude: box.3, maxCells: 16)
        let cells = cover.reduce(Int64(0)) { $0 + $1.upperBound - $1.lowerBound + 1 }
        let cellArea = (180.0 / Double(1 << GeoCell.bits)) * (360.0 / Double(1 << GeoCell.bits))
        let boxArea = (box.1 - box.0) * (box.3 - box.2)
        #expect(Double(cells) * cellArea < 6 * boxArea, "\(Double(cells) * cellArea / boxArea)× the box")
    }

    @Test func theGlobesEdgesAndOddValuesStayOnIt() {
        let all = GeoCell.cover(minLatitude: -100, maxLatitude: 100, minLongitude: -200, maxLongitude: 200, maxCells: 16)
        #expect(all == [0...((Int64(1) << (2 * GeoCell.bits)) - 1)])
        for (lat, lon) in [(90.0, 180.0), (-90.0, -180.0), (.infinity, -.infinity), (.nan, 0)] {
            let c = GeoCell.cell(latitude: lat, longitude: lon)
            #expect(all[0].contains(c))
        }
        #expect(GeoCell.cover(minLatitude: 10, maxLatitude: 5, minLongitude: 0, maxLongitude: 1, maxCells: 16).isEmpty)
    }

    @Test func aNearQueryLooksEachRangeUpOnce() {
        // Unused slots are empty ranges: a range looked up twice reads its index entries twice.
        let (sql, arguments) = GeoCellTable.within("g", boxes: [(48.76, 48.94, 2.21, 2.49)])
        #expect(arguments.count == GeoCellTable.slots * 6 && sql.components(separatedBy: "UNION ALL").count == GeoCellTable.slots)
        let ranges = stride(from: 0, to: arguments.count, by: 6).map { (arguments[$0], arguments[$0 + 1]) }
        let real = ranges.filter { if case .int64(let lo) = $0.0, case .int64(let hi) = $0.1 { return lo <= hi }; return false }
        #expect(!real.isEmpty && real.count < GeoCellTable.slots)
        #expect(Set(real.map { "\($0.0)-\($0.1)" }).count == real.count, "a range in two slots")
    }
}
