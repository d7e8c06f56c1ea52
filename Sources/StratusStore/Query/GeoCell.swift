import StratusModel

/// Where a location lies on a Z-order (Morton) curve over latitude and longitude, for SQLite's location index: a
/// plain B-tree of (cell, record id) in place of an R*Tree. SQLite's R*Tree inserts through SQL statements of its
/// own and runs the R* split for every point, while a B-tree of integers fills in key order and writes one page a
/// record. A bounding box becomes a handful of cell ranges (`cover`), each one seek; the side table keeps the exact
/// coordinates beside the cell, so the box is checked in the index, and the distance on the row as before.
enum GeoCell {
    /// Bits per coordinate: 2^26 steps of 180° and 360° are under 0.6 m, and the cell fits in 52 bits.
    static let bits = 26
    private static let steps = Double(1 << bits)
    private static let top = Int64(1 << bits) - 1

    /// The cell of a point (coordinates outside the globe are clamped onto it).
    static func cell(latitude: Double, longitude: Double) -> Int64 {
        interleave(quantize(longitude, from: -180, span: 360), quantize(latitude, from: -90, span: 180))
    }

    /// Inclusive ranges of cells that hold every point of the box, at most `maxCells` of them before adjacent
    /// ones merge: the finest level at which the box spans no more cells than that.
    static func cover(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double,
                      maxCells: Int) -> [ClosedRange<Int64>] {
        let u0 = quantize(minLatitude, from: -90, span: 180), u1 = quantize(maxLatitude, from: -90, span: 180)
        let v0 = quantize(minLongitude, from: -180, span: 360), v1 = quantize(maxLongitude, from: -180, span: 360)
        guard u0 <= u1, v0 <= v1 else { return [] }
        var shift: Int64 = 0
        while shift < Int64(bits), ((u1 >> shift) - (u0 >> shift) + 1) * ((v1 >> shift) - (v0 >> shift) + 1) > Int64(max(1, maxCells)) {
            shift += 1
        }
        var ranges: [ClosedRange<Int64>] = []
        for cu in (u0 >> shift)...(u1 >> shift) {
            for cv in (v0 >> shift)...(v1 >> shift) {
                let low = interleave(cv, cu) << (2 * shift)
                ranges.append(low...(low + (Int64(1) << (2 * shift)) - 1))
            }
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int64>] = []
        for r in ranges {
            if let last = merged.last, last.upperBound + 1 >= r.lowerBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    private static func quantize(_ degrees: Double, from origin: Double, span: Double) -> Int64 {
        guard degrees.isFinite else { return degrees > 0 ? top : 0 }
        let q = ((degrees - origin) / span * steps).rounded(.down)
        return q <= 0 ? 0 : q >= Double(top) ? top : Int64(q)
    }

    /// x's bits at the even positions, y's at the odd ones.
    private static func interleave(_ x: Int64,
                                   _ y: Int64) -> Int64 { Int64(bitPattern: spread(UInt64(x)) | spread(UInt64(y)) << 1) }

    private static func spread(_ value: UInt64) -> UInt64 {
        var v = value & 0xFFFF_FFFF
        v = (v | v << 16) & 0x0000_FFFF_0000_FFFF
        v = (v | v << 8) & 0x00FF_00FF_00FF_00FF
        v = (v | v << 4) & 0x0F0F_0F0F_0F0F_0F0F
        v = (v | v << 2) & 0x3333_3333_3333_3333
        v = (v | v << 1) & 0x5555_5555_5555_5555
        return v
    }
}
