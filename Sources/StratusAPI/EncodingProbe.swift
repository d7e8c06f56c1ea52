import Foundation
import StratusModel

/// Times the wire encoding of records, for the benchmark's diagnostics.
public enum EncodingProbe {
    public static func encode(_ records: [StoredRecord], times: Int) -> (ms: Double, bytes: Int) {
        let enc = WireEncoding()
        var total = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<times {
            var w = JSONWriter(capacity: 128 * 1024)
            w.beginArray()
            for r in records { enc.record(r, &w) }
            w.endArray()
            total += w.bytes.count
        }
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(times), total / times)
    }
}
