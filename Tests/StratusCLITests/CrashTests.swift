import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// Kills a writing process with SIGKILL in the middle of its work and checks, on reopening, that every batch it
/// acknowledged is there in full, no batch is there in part, and SQLite finds the file intact.
@Suite struct CrashTests {
    @Test(arguments: [15, 40])
    func killedWriterLosesNoAcknowledgedWrite(acksBeforeKill: Int) async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = "iCloud.com.example.Crash"
        #expect(try await Executables.run("stratus", ["container", "create", container, "--data", data.path]).status == 0)

        let writer = ChildProcess()
        writer.executableURL = Executables.url("stratus-bench")
        writer.arguments = ["writer", "--data", data.path, "--container", container]
        let out = Pipe()
        writer.standardOutput = out
        try writer.run()
        let reader = out.fileHandleForReading
        let pid = writer.processIdentifier
        let acked: Int = try await Executables.offPool {
            var acked = -1
            var buffer = ""
            while acked < acksBeforeKill {
                let chunk = reader.availableData
                guard !chunk.isEmpty else { break }
                buffer += String(decoding: chunk, as: UTF8.self)
                while let nl = buffer.firstIndex(of: "\n") {
                    let line = buffer[..<nl]
                    if line.hasPrefix("ack "), let n = Int(line.dropFirst(4)) { acked = n }
                    buffer.removeSubrange(...nl)
                }
            }
            kill(pid, SIGKILL)
            writer.waitUntilExit()
            return acked
        }
        #expect(writer.terminationReason == .uncaughtSignal)
        #expect(acked >= acksBeforeKill)

        // Reopening and checking is blocking SQLite work: off Swift's cooperative threads, which other suites' servers need.
        struct Findings: Sendable { var integrity: String; var incomplete: [Int]; var total: Int; var listed: Int; var writes: Bool }
        let found = try await Executables.offPool { () -> Findings in
            let store = try ServerStore(dataDirectory: data)
            let env = try store.environment(try ContainerID(container), .development)
            var incomplete: [Int] = []
            for batch in 0...acked {
                let found = try env.records.lookup((0..<200).map { "b\(batch)-\($0)" }, in: .publicDatabase)
                if !found.allSatisfy({ (try? $0.get()) != nil }) { incomplete.append(batch) }
            }
            // Whatever else landed is whole batches only, and the change feed agrees with the records.
            var token: String? = nil
            var total = 0
            repeat {
                let page = try env.zones.zoneChanges(in: .publicDatabase, zoneID: .defaultZone, since: token)
                total += page.changed.count
                token = page.syncToken
                if !page.moreComing { break }
            } while true
            let q = Query(recordType: "Crash", filters: [QueryFilter(.field("tags"), .listContains, .string("t3"))], resultsLimit: 200)
            let listed = try env.records.query(q, in: .publicDatabase).records.count
            // And the store still takes writes.
            let r = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "after", recordType: "Crash"))], in: .publicDatabase, actor: .system)
            return Findings(integrity: try env.integrityCheck(), incomplete: incomplete, total: total, listed: listed, writes: r[0].error == nil)
        }
        #expect(found.integrity == "ok")
        #expect(found.incomplete.isEmpty, "batches \(found.incomplete) were acknowledged but are not complete")
        #expect(found.total % 200 == 0 && found.total >= (acked + 1) * 200)
        #expect(found.listed == 200)
        #expect(found.writes)
    }
}

#if canImport(Glibc)
import Glibc
#endif
