import Foundation
import Testing
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

        let writer = Process()
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

        let store = try RecordStore(dataDirectory: data)
        let env = try store.environment(try ContainerID(container), .development)
        #expect(try env.integrityCheck() == "ok")
        for batch in 0...acked {
            let found = try env.lookup((0..<200).map { "b\(batch)-\($0)" }, in: .publicDatabase)
            #expect(found.allSatisfy { (try? $0.get()) != nil }, "batch \(batch) was acknowledged but is not complete")
        }
        // Whatever else landed is whole batches only, and the change feed agrees with the records.
        var token: String? = nil
        var total = 0
        repeat {
            let page = try env.zoneChanges(in: .publicDatabase, zoneID: .defaultZone, since: token)
            total += page.changed.count
            token = page.syncToken
            if !page.moreComing { break }
        } while true
        #expect(total % 200 == 0 && total >= (acked + 1) * 200)
        let q = Query(recordType: "Crash", filters: [QueryFilter(.field("tags"), .listContains, .string("t3"))], resultsLimit: 200)
        #expect(try env.query(q, in: .publicDatabase).records.count == 200)
        // And the store still takes writes.
        let r = try env.modify([RecordOperation(.create, StoredRecord(recordName: "after", recordType: "Crash"))], in: .publicDatabase, actor: .system)
        #expect(r[0].error == nil)
    }
}

#if canImport(Glibc)
import Glibc
#endif
