import Foundation
import Testing
import StratusModel
import StratusStore

/// `stratus records export|import`: every field type and a custom zone round-trip export → import → export to
/// the same lines (change tags and timestamps aside); a bad line stops the import at its number with nothing of
/// its batch written, and `--resume` continues after the last committed line.
@Suite struct RecordTransferTests {
    static let owner = "_" + String(repeating: "d", count: 32)
    /// Texts a spreadsheet would run as formulas, and ones that only look like it (index 0 is unused).
    static let formulas = ["", "=HYPERLINK(\"http://evil.example\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\tcmd", "\rcarriage", "'quoted", "-5"]

    static func seed(_ data: URL, _ container: String) throws {
        let store = try ServerStore(dataDirectory: data, durability: .relaxed)
        let env = try store.environment(try ContainerID(container), .development)
        var ops: [RecordOperation] = []
        for i in 0..<450 {
            ops.append(RecordOperation(.create, StoredRecord(recordName: "item-\(i)", recordType: "Item", fields: [
                "title": .string(i % 50 == 0 ? "quote \" comma , newline \n ünïcode 🚀" : i < 9 ? Self.formulas[i] : "title \(i)"), "count": .int64(Int64(i * 7 - 1000)),
                "score": .double(Double(i) / 8), "at": .timestamp(millis: 1_700_000_000_000 + Int64(i)), "owner": .reference(Reference(recordName: "item-\(max(0, i - 1))")),
                "place": .location(Location(latitude: 41.5, longitude: 2.25)), "tags": .list(.string, [.string("a\(i % 3)"), .string("b")]),
                "nums": .list(.int64, [.int64(1), .int64(Int64(i))]), "blob": .bytes(Data([UInt8(i % 256), 0, 255])),
            ])))
            if ops.count == 200 { _ = try env.records.modify(ops, in: .publicDatabase, actor: .system); ops = [] }
        }
        _ = try env.records.modify(ops, in: .publicDatabase, actor: .system)
        let mine = DatabaseID.privateDatabase(of: owner)
        let work = ZoneID(zoneName: "Work", ownerRecordName: owner)
        _ = try env.zones.createZone(work, in: mine)
        _ = try env.records.modify((0..<30).map { RecordOperation(.create, StoredRecord(recordName: "note-\($0)", recordType: "Note", fields: ["text": .string("n\($0)")])) },
                           in: mine, zoneID: work, actor: RequestActor(userRecordName: owner))
    }

    /// The lines with what a write regenerates taken out (change tags, created and modified stamps).
    static func comparable(_ ndjson: String) throws -> [String] {
        try ndjson.split(separator: "\n").map { line in
            var o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for k in ["recordChangeTag", "created", "modified"] { o.removeValue(forKey: k) }
            return String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    /// `--user` takes an email address or a user record name, as `users purge` does; a user who is not there is an
    /// error naming them, not "exported 0 records".
    @Test func exportNamesTheUserByEmailOrRecordName() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let c = "iCloud.com.example.Users"
        #expect(try await Executables.run("stratus", ["container", "create", c, "--data", data.path]).status == 0)
        let userRecordName = try await Executables.offPool { () throws -> String in
            let store = try ServerStore(dataDirectory: data, durability: .relaxed)
            defer { store.close() }
            let container = try ContainerID(c)
            let u = try store.accounts.createUser(container: container, email: "Dana@Example.com", password: "a long password")
            let env = try store.environment(container, .development)
            let zone = ZoneID(zoneName: "Diary", ownerRecordName: u.userRecordName)
            _ = try env.zones.createZone(zone, in: .privateDatabase(of: u.userRecordName))
            _ = try env.records.modify((0..<4).map { RecordOperation(.create, StoredRecord(recordName: "d\($0)", recordType: "Day", fields: ["text": .string("day \($0)")])) },
                               in: .privateDatabase(of: u.userRecordName), zoneID: zone, actor: RequestActor(userRecordName: u.userRecordName))
            return u.userRecordName
        }
        let common = ["records", "export", "--data", data.path, "--container", c, "--environment", "development", "--database", "private"]
        for name in ["dana@example.com", userRecordName] {
            let r = try await Executables.run("stratus", common + ["--user", name])
            #expect(r.status == 0 && r.stderr.contains("exported 4 records") && r.stdout.split(separator: "\n").count == 4, "\(name): \(r.stderr)")
        }
        for unknown in ["nobody@example.com", "_" + String(repeating: "0", count: 32)] {
            let r = try await Executables.run("stratus", common + ["--user", unknown])
            #expect(r.status != 0 && r.stderr.contains("no user '\(unknown)'") && r.stdout.isEmpty, "\(unknown): \(r.stderr)")
        }
    }

    @Test func exportImportExportGivesTheSameLines() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        for c in ["iCloud.com.example.From", "iCloud.com.example.To"] {
            #expect(try await Executables.run("stratus", ["container", "create", c, "--data", data.path]).status == 0)
        }
        try await Executables.offPool { try Self.seed(data, "iCloud.com.example.From") }
        let common = ["--data", data.path, "--environment", "development"]
        let pub = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.From"] + common)
        #expect(pub.status == 0 && pub.stderr.contains("exported 450 records"), "\(pub.stderr)")
        let mine = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.From", "--database", "private", "--user", Self.owner] + common)
        #expect(mine.status == 0 && mine.stdout.split(separator: "\n").count == 30)
        #expect(mine.stdout.contains(#""zoneName":"Work""#))
        let pubFile = data.appendingPathComponent("public.ndjson"), mineFile = data.appendingPathComponent("private.ndjson")
        try Data(pub.stdout.utf8).write(to: pubFile)
        try Data(mine.stdout.utf8).write(to: mineFile)

        let loaded = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.To", "--file", pubFile.path] + common)
        #expect(loaded.status == 0 && loaded.stdout.contains("imported 450 records"), "\(loaded.stderr)")
        #expect(loaded.stderr.contains("imported") || loaded.stderr.isEmpty, "plain progress lines when not on a terminal")
        let loadedMine = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.To", "--file", mineFile.path,
                                                               "--database", "private", "--user", Self.owner] + common)
        #expect(loadedMine.status == 0, "\(loadedMine.stderr)")
        let again = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.To"] + common)
        let againMine = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.To", "--database", "private", "--user", Self.owner] + common)
        #expect(try Self.comparable(again.stdout) == Self.comparable(pub.stdout))
        #expect(try Self.comparable(againMine.stdout) == Self.comparable(mine.stdout))

        // create refuses what exists, at its line; upsert replaces.
        let twice = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.To", "--file", pubFile.path] + common)
        #expect(twice.status != 0 && twice.stderr.contains("line 1:"), "\(twice.stderr)")
        let upsert = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.To", "--file", pubFile.path, "--mode", "upsert"] + common)
        #expect(upsert.status == 0, "\(upsert.stderr)")

        // CSV: one column per field of the type, quoted where it must be.
        let csv = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.From", "--format", "csv", "--type", "Item"] + common)
        let header = try #require(csv.stdout.split(separator: "\n").first)
        #expect(header.hasPrefix("recordName,zoneName,") && header.contains("title") && header.contains("nums"))
        #expect(csv.stdout.contains(#""quote "" comma , newline "#))
        let noType = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.From", "--format", "csv"] + common)
        #expect(noType.status != 0 && noType.stderr.contains("--type"))
    }

    /// CSV export → CSV import gives the same records; a column that is no field of the type, or a row with the
    /// wrong number of cells, stops the import at its line with nothing of its batch written.
    @Test func csvRoundTripsAndBadCSVIsRefusedAtItsLine() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        for c in ["iCloud.com.example.From", "iCloud.com.example.CSV"] {
            #expect(try await Executables.run("stratus", ["container", "create", c, "--data", data.path]).status == 0)
        }
        try await Executables.offPool { try Self.seed(data, "iCloud.com.example.From") }
        let common = ["--data", data.path, "--environment", "development"]
        let pub = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.From"] + common)
        let csv = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.From", "--format", "csv", "--type", "Item"] + common)
        let csvFile = data.appendingPathComponent("items.csv"), first = data.appendingPathComponent("first.ndjson")
        try Data(csv.stdout.utf8).write(to: csvFile)
        // The type comes into the new container's schema with one record; the CSV then writes every record (upsert).
        try Data((pub.stdout.split(separator: "\n").first! + "\n").utf8).write(to: first)
        #expect(try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.CSV", "--file", first.path] + common).status == 0)
        let noType = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.CSV", "--file", csvFile.path, "--format", "csv"] + common)
        #expect(noType.status != 0 && noType.stderr.contains("--type"))
        let loaded = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.CSV", "--file", csvFile.path,
                                                           "--format", "csv", "--type", "Item", "--mode", "upsert"] + common)
        #expect(loaded.status == 0 && loaded.stdout.contains("imported 450 records"), "\(loaded.stderr)")
        let again = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.CSV"] + common)
        #expect(try Self.comparable(again.stdout) == Self.comparable(pub.stdout))
        // No cell of the CSV starts a formula in a spreadsheet; the values came back exactly all the same (above).
        for formula in Self.formulas.dropFirst() where formula != "-5" {
            #expect(csv.stdout.contains(",'\(formula.replacingOccurrences(of: "\"", with: "\"\""))") || csv.stdout.contains(",\"'\(formula.replacingOccurrences(of: "\"", with: "\"\""))"), "\(formula)")
        }
        #expect(csv.stdout.contains(",-5\n"), "a plain number stays as it is")

        let wrongColumn = data.appendingPathComponent("wrong-column.csv")
        try Data("recordName,zoneName,title,colour\nx-1,_defaultZone,one,red\n".utf8).write(to: wrongColumn)
        let refused = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.CSV", "--file", wrongColumn.path,
                                                            "--format", "csv", "--type", "Item"] + common)
        #expect(refused.status != 0 && refused.stderr.contains("line 1:") && refused.stderr.contains("column 'colour' is not a field of Item"), "\(refused.stderr)")
        // Line 4 (after a row whose quoted title runs over two lines) has a cell too few: nothing of the batch lands.
        let short = data.appendingPathComponent("short.csv")
        try Data("recordName,title,count\nnew-1,\"two\nlines\",1\nnew-2\n".utf8).write(to: short)
        let stopped = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.CSV", "--file", short.path,
                                                            "--format", "csv", "--type", "Item"] + common)
        #expect(stopped.status != 0 && stopped.stderr.contains("line 4:") && stopped.stderr.contains("the row has 1 cells; the header has 3"), "\(stopped.stderr)")
        let after = try await Executables.run("stratus", ["records", "export", "--container", "iCloud.com.example.CSV"] + common)
        #expect(!after.stdout.contains("new-1"))
        let badNumber = data.appendingPathComponent("bad-number.csv")
        try Data("recordName,count\nn-1,twelve\n".utf8).write(to: badNumber)
        let notANumber = try await Executables.run("stratus", ["records", "import", "--container", "iCloud.com.example.CSV", "--file", badNumber.path,
                                                               "--format", "csv", "--type", "Item"] + common)
        #expect(notANumber.status != 0 && notANumber.stderr.contains("line 2:") && notANumber.stderr.contains("INT64"), "\(notANumber.stderr)")
    }

    @Test func aBadLineStopsItsBatchAndResumeContinues() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        #expect(try await Executables.run("stratus", ["container", "create", "iCloud.com.example.Lines", "--data", data.path]).status == 0)
        let good = (0..<300).map { #"{"recordName":"r\#($0)","recordType":"Line","fields":{"n":{"value":\#($0)}}}"# }
        let file = data.appendingPathComponent("lines.ndjson")
        var lines = good
        lines[250] = #"{"recordName":"r250","recordType":"Line","fields":{"n":{"value":"#   // not JSON
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let common = ["--container", "iCloud.com.example.Lines", "--data", data.path, "--environment", "development", "--file", file.path, "--batch-size", "200"]
        let failed = try await Executables.run("stratus", ["records", "import"] + common)
        #expect(failed.status != 0 && failed.stderr.contains("line 251: the line is not JSON (BAD_REQUEST)") && failed.stderr.contains("lines up to 200"), "\(failed.stderr)")
        let count = { () async throws -> Int in
            try await Executables.offPool {
                try ServerStore(dataDirectory: data).environment(try ContainerID("iCloud.com.example.Lines"), .development).records.recordCount()
            }
        }
        #expect(try await count() == 200, "the first batch is in, nothing of the bad line's batch")
        // A record the store refuses (a value of the wrong type for its field) stops it the same way.
        lines[250] = #"{"recordName":"r250","recordType":"Line","fields":{"n":{"value":"text","type":"STRING"}}}"#
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let refused = try await Executables.run("stratus", ["records", "import", "--resume"] + common)
        #expect(refused.status != 0 && refused.stderr.contains("resuming after line 200") && refused.stderr.contains("line 251:"), "\(refused.stderr)")
        #expect(try await count() == 200)
        lines[250] = good[250]
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let resumed = try await Executables.run("stratus", ["records", "import", "--resume"] + common)
        #expect(resumed.status == 0 && resumed.stdout.contains("imported 100 records"), "\(resumed.stderr)")
        #expect(try await count() == 300)
    }
}
