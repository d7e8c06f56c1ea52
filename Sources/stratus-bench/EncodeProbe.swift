import ArgumentParser
import Foundation
import StratusAPI
import StratusModel

/// `stratus-bench encode`: how long the API takes to write 200 benchmark records as CloudKit JSON.
struct EncodeProbe: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "encode",
                                                    abstract: "Time the JSON encoding of a 200-record page.")
    func run() throws {
        var rng = SplitMix(seed: 1)
        let records = (0..<200).map { i -> StoredRecord in
            var r = StoreScenario.record(BenchRow.make(i, &rng))
            r.recordChangeTag = "abc"
            r.created = RecordStamp(timestamp: 1_700_000_000_000, userRecordName: "_" + String(repeating: "a",
                    count: 32))
            r.modified = r.created
            return r
        }
        let (ms, bytes) = EncodingProbe.encode(records, times: 200)
        Figure(scenario: "encode", metric: "page_encode_ms", value: ms, unit: "ms").print()
        Figure(scenario: "encode", metric: "page_bytes", value: Double(bytes), unit: "bytes").print()
    }
}
