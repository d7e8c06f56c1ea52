import Foundation
import StratusModel
import StratusStore

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

extension EncodingProbe {
    /// Pages through a zone's whole change feed as `changes/zone` does (minus HTTP), writing JSON when
    /// `json` is set and handing rows to a sink that drops them otherwise. Returns records per second.
    public static func changes(_ store: EnvironmentStore, in database: DatabaseID, zone: ZoneID,
                               json: Bool) throws -> (rate: Double, records: Int) {
        var token: String? = nil
        var seen = 0
        let start = DispatchTime.now().uptimeNanoseconds
        while true {
            let c: ZoneChanges
            if json {
                var sink = WireRecordSink(encoding: WireEncoding(), writer: JSONWriter(capacity: 64 * 1024))
                c = try store.zones.zoneChanges(in: database, zoneID: zone, since: token, resultsLimit: 200,
                                                into: &sink)
                seen += sink.records
                _ = sink.writer.data
            } else {
                var sink = CountingSink()
                c = try store.zones.zoneChanges(in: database, zoneID: zone, since: token, resultsLimit: 200,
                                                into: &sink)
                seen += sink.records
            }
            token = c.syncToken
            if !c.moreComing { break }
        }
        return (Double(seen) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9), seen)
    }

    private struct CountingSink: RecordSink {
        var records = 0
        mutating func beginRecord(_ header: RecordHeader) { records += 1 }
        mutating func field(_ name: String, _ value: FieldValue) {}
        mutating func endRecord() {}
    }
}
