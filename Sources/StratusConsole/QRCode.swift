/// A QR code (ISO/IEC 18004) of some bytes, drawn as SVG on the server: byte mode, error correction level M,
/// versions 1 to 10 (up to 213 bytes: an `otpauth://` URI fits in 6 or 7), mask pattern 0 (any mask is valid;
/// scanners read each). Made for the second factor's enrolment page, so no script or service sees the secret.
struct QRCode {
    /// The modules, row by row: true is dark.
    private(set) var modules: [[Bool]]
    private var isFunction: [[Bool]]
    let version: Int
    var size: Int { version * 4 + 17 }

    /// Per version (index 1…10), level M: error correction codewords per block, and the blocks' data codewords.
    private static let blocks: [(ec: Int, data: [Int])] = [
        (0, []), (10, [16]), (16, [28]), (26, [44]), (18, [32, 32]), (24, [43, 43]), (16, [27, 27, 27, 27]),
        (18, [31, 31, 31, 31]), (22, [38, 38, 39, 39]), (22, [36, 36, 36, 37, 37]), (26, [43, 43, 43, 43, 44]),
    ]
    private static let alignments: [[Int]] = [
        [], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]

    struct TooLong: Error {}

    init(_ bytes: [UInt8]) throws {
        guard let version = (1...10).first(where: { v in
            4 + (v < 10 ? 8 : 16) + 8 * bytes.count <= Self.blocks[v].data.reduce(0, +) * 8
        }) else { throw TooLong() }
        self.version = version
        let n = version * 4 + 17
        modules = Array(repeating: Array(repeating: false, count: n), count: n)
        isFunction = modules
        drawFunctionPatterns()
        drawCodewords(Self.interleaved(Self.dataCodewords(bytes, version: version), version: version))
        applyMask()
        drawFormatBits()
    }

    // MARK: codewords

    private static func dataCodewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for i in (0..<count).reversed() { bits.append((value >> i) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, version < 10 ? 8 : 16)
        for b in bytes { append(Int(b), 8) }
        let capacity = blocks[version].data.reduce(0, +) * 8
        append(0, min(4, capacity - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var out = stride(from: 0, to: bits.count, by: 8).map { i in
            bits[i..<i + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while out.count < capacity / 8 { out.append(pad); pad ^= 0xEC ^ 0x11 }
        return out
    }

    /// The data split into blocks, each followed by its Reed-Solomon codewords, read column by column.
    private static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let (ec, sizes) = blocks[version]
        let divisor = reedSolomonDivisor(ec)
        var offset = 0
        var split: [(data: [UInt8], ec: [UInt8])] = []
        for size in sizes {
            let block = Array(data[offset..<offset + size])
            offset += size
            split.append((block, reedSolomonRemainder(block, divisor)))
        }
        var out: [UInt8] = []
        for i in 0..<(sizes.max() ?? 0) { for b in split where i < b.data.count { out.append(b.data[i]) } }
        for i in 0..<ec { for b in split { out.append(b.ec[i]) } }
        return out
    }

    private static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in (0..<8).reversed() {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= ((Int(y) >> i) & 1) * Int(x)
        }
        return UInt8(z & 0xff)
    }

    private static func reedSolomonDivisor(_ degree: Int) -> [UInt8] {
        var result = Array(repeating: UInt8(0), count: degree - 1) + [1]
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    private static func reedSolomonRemainder(_ data: [UInt8], _ divisor: [UInt8]) -> [UInt8] {
        var result = Array(repeating: UInt8(0), count: divisor.count)
        for b in data {
            let factor = b ^ result.removeFirst()
            result.append(0)
            for i in 0..<result.count { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }

    // MARK: modules

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool) {
        modules[y][x] = dark
        isFunction[y][x] = true
    }

    private mutating func drawFunctionPatterns() {
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let d = max(abs(dx), abs(dy))
                    set(x + dx, y + dy, d != 2 && d != 4)
                }
            }
        }
        let centres = Self.alignments[version], last = centres.count - 1
        for (i, cy) in centres.enumerated() {
            // Not where a finder pattern is (three corners).
            for (j, cx) in centres.enumerated() where !((i == 0 && (j == 0 || j == last)) || (i == last && j == 0)) {
                for dy in -2...2 { for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) } }
            }
        }
        drawFormatBits()
        if version >= 7 {
            var rem = version
            for _ in 0..<12 { rem = (rem << 1) ^ ((rem >> 11) * 0x1F25) }
            let bits = version << 12 | rem
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1, a = size - 11 + i % 3, b = i / 3
                set(a, b, dark)
                set(b, a, dark)
            }
        }
    }

    /// Level M (format bits 00) and mask 0, with their BCH code.
    private mutating func drawFormatBits() {
        let data = 0 << 3 | 0
        var rem = data
        for _ in 0..<10 { rem = (rem << 1) ^ ((rem >> 9) * 0x537) }
        let bits = (data << 10 | rem) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    private mutating func drawCodewords(_ data: [UInt8]) {
        var i = 0, right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j, upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    if !isFunction[y][x] && i < data.count * 8 {
                        modules[y][x] = (data[i >> 3] >> (7 - (i & 7))) & 1 == 1
                        i += 1
                    }
                }
            }
            right -= 2
        }
    }

    private mutating func applyMask() {
        for y in 0..<size { for x in 0..<size where !isFunction[y][x] && (x + y) % 2 == 0 { modules[y][x].toggle() } }
    }

    /// The code as an SVG image: dark modules on white with the four-module quiet zone, in both colour schemes.
    func svg(label: String) -> String {
        let full = size + 8
        var path = ""
        for y in 0..<size { for x in 0..<size where modules[y][x] { path += "M\(x + 4) \(y + 4)h1v1h-1z" } }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(full) \(full)" width="\(full * 6)" \
            height="\(full * 6)" role="img" aria-label="\(label)" shape-rendering="crispEdges">\
            <rect width="\(full)" height="\(full)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}
