import CZlib
import Foundation

/// gzip compression of response bodies through the system zlib.
public enum Gzip {
    public static func compress(_ data: Data, level: Int32 = 5) -> Data? {
        var stream = z_stream()
        guard czlib_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, UInt(data.count))) + 32)
        let result: Int32 = data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Int32 in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(data.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        output.count = Int(stream.total_out)
        return output
    }

    /// Types worth compressing: text, JSON, JavaScript, SVG.
    public static func isCompressible(_ contentType: String?) -> Bool {
        guard let t = contentType?.lowercased() else { return false }
        return t.hasPrefix("text/") || t.contains("json") || t.contains("javascript") || t.contains("svg") || t.contains("xml")
    }
}
