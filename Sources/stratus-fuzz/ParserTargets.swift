import Foundation
import StratusAPI
import StratusConsole
import StratusHTTP
import StratusModel

/// The parsers a client's bytes reach, each fed on its own at full speed (the `http` target feeds the same ones
/// through the real server, slower). A parser may refuse anything; it may not trap, and what it accepts must read
/// back the same where the code promises a round trip.
enum ParserTargets {
    /// A record type with a field of every kind, for the targets that read values by their field's type.
    static let schema: Schema = {
        let text = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Item (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE, "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SORTABLE SEARCHABLE, count INT64 QUERYABLE SORTABLE, price DOUBLE QUERYABLE SORTABLE,
                blob BYTES, at TIMESTAMP QUERYABLE SORTABLE, owner REFERENCE QUERYABLE, photo ASSET, place LOCATION QUERYABLE,
                secret ENCRYPTED STRING, tags LIST<STRING> QUERYABLE, nums LIST<INT64> QUERYABLE, dates LIST<TIMESTAMP>,
                refs LIST<REFERENCE> QUERYABLE, places LIST<LOCATION>, blobs LIST<BYTES>, prices LIST<DOUBLE>,
                GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world", GRANT READ TO Editor
            );
        """
        return try! SchemaParser.parse(text)
    }()
    static var item: RecordTypeSchema { schema.recordType(named: "Item")! }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let e as StratusError: FuzzTarget.outcome("\(e.code.rawValue) \(e.reason)")
        case let e as HTTPError: FuzzTarget.outcome("\(e.status.code) \(e.message)")
        default: FuzzTarget.outcome("\(error)")
        }
    }

    static let all: [FuzzTarget] = [head, chunked, multipart, percent, dates, json, wire, ckdb, consoleQuery, ndjson,
                                    csv]

    static let head = FuzzTarget("head", maxLength: 20 * 1024, dictionary: [
        "GET ", "POST ", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "\r\n", "\r\n\r\n", "Host: ", "Content-Length: ", "Transfer-Encoding: ",
        "chunked", "Connection: ", "keep-alive", "close", "X-Forwarded-For: ", "Forwarded: for=", "X-Real-IP: ", "Authorization: Bearer ",
        "Accept-Encoding: gzip;q=0", "Cookie: stratus_session=", "?ckAPIToken=", "&ckWebAuthToken=", "%2F", "[::1]", "127.0.0.1", ":",
    ]) { bytes in
        do {
            guard let end = try RequestHeadParser.headEnd(in: bytes, from: 0) else {
                return RequestHeadParser.requestLineError(in: bytes).map(describe) ?? "incomplete"
            }
            var req = try RequestHeadParser.parse(bytes[0..<end], remoteAddress: "127.0.0.1:5000")
            let framing = try RequestHeadParser.framing(req.headers)
            req.resolveClient(publicURL: nil, trustedProxies: [CIDR("127.0.0.0/8")!])
            var other = req
            other.resolveClient(publicURL: "https://ck.example.com", trustedProxies: [])
            _ = (req.queryItems, req.query("ckAPIToken"), req.keepAlive, req.acceptsGzip(), req.bearerToken,
                 req.isLoopback, other.isLoopback)
            if let router = ServerTarget.router { _ = router.match(req.method, req.pathSegments) }
            return "ok \(framing)".filter { !$0.isNumber }
        } catch { return describe(error) }
    }

    static let chunked = FuzzTarget("chunked", dictionary: ["\r\n", "0\r\n\r\n", ";ext=1", "ffffffff", "-1",
                                                            "5\r\nhello\r\n", "Trailer: x\r\n"]) { bytes in
        var decoder = ChunkedDecoder(limit: 1 << 20, maxTrailerBytes: 16 * 1024)
        var buffer = bytes
        do {
            while true {
                switch try decoder.step(&buffer) {
                case .needMore: return "needs more"
                case .announced: continue
                case .finished:
                    return "finished"
                }
            }
        } catch { return describe(error) }
    }

    /// The first line is the Content-Type, the rest the body.
    static let multipart = FuzzTarget("multipart", dictionary: [
        "multipart/form-data; boundary=", "--", "\r\n", "\r\n\r\n", "Content-Disposition: form-data; name=\"", "\"; filename=\"",
        "Content-Type: ", "\"", "boundary=\"x\"",
    ]) { bytes in
        let cut = Mutator.find([13, 10], in: bytes)
        let type = String(decoding: bytes[..<(cut?.lowerBound ?? bytes.count)], as: UTF8.self)
        let body = Data(bytes[(cut?.upperBound ?? bytes.count)...])
        guard let form = MultipartForm(body, contentType: type) else { return "refused" }
        _ = (form.fields, form.file(named: "file"))
        return "parts \(min(form.parts.count, 5))"
    }

    static let percent = FuzzTarget("percent", dictionary: ["%", "+", "&", "=", "%2B", "%ZZ", "%C3%A9",
                                                            "%FF"]) { bytes in
        let s = String(decoding: bytes, as: UTF8.self)
        let decoded = PercentDecoding.decode(s, plusAsSpace: true)
        let items = HTTPRequest.formItems(s)
        if let decoded {
            // Encoding a decoded segment and decoding it again gives it back.
            precondition(PercentDecoding.decode(PercentDecoding.encodeSegment(decoded)) == decoded,
                         "percent round trip")
        }
        return "\(decoded == nil ? "refused" : "decoded") \(min(items.count, 3))"
    }

    /// Dates as clients send them: ISO 8601 (server-to-server headers, console forms and filters) and HTTP dates.
    static let dates = FuzzTarget("dates", dictionary: ["-", ":", "T", "Z", "+", ".", " ", "GMT", "Sun, ", " Nov ",
                                                        "\u{030A}", "29", "02", "9999"]) { bytes in
        let s = String(decoding: bytes, as: UTF8.self)
        let iso = ISO8601Time.millis(s)
        let http = StaticFiles.parseHTTPDate(s)
        return "\(iso == nil ? "-" : "iso") \(http == nil ? "-" : "http")"
    }

    static let json = FuzzTarget("json", dictionary: ["{", "}", "[", "]", ":", ",", "\"", "\\u", "\\ud83d\\ude00",
                                                      "true", "null", "1e5", "-0.0", "1.5E-3"]) { bytes in
        do {
            let value = try JSON.parse(Data(bytes))
            // What the server writes of a value it read parses back to the same value.
            let again = try JSON.parse(Data(value.serialized.utf8))
            precondition(same(again, value), "JSON round trip")
            return "ok \(kind(value))"
        } catch { return describe(error) }
    }

    /// A request body as the API decodes it: a record, a query, a subscription, a share.
    static let wire = FuzzTarget("wire", dictionary: [
        "\"record\"", "\"query\"", "\"subscription\"", "\"recordName\"", "\"recordType\"", "\"fields\"", "\"value\"", "\"type\"",
        "\"filterBy\"", "\"sortBy\"", "\"comparator\"", "\"fieldName\"", "\"fieldValue\"", "\"systemFieldName\"", "\"zoneID\"", "\"zoneName\"",
        "\"ownerRecordName\"", "\"STRING_LIST\"", "\"TIMESTAMP\"", "\"LOCATION\"", "\"REFERENCE\"", "\"ASSETID\"", "\"BYTES\"", "\"INT64\"",
        "\"DOUBLE\"", "\"NEAR\"", "\"IN\"", "\"LIST_CONTAINS\"", "\"BEGINS_WITH\"", "\"latitude\"", "\"longitude\"", "\"distance\"",
        "\"subscriptionType\"", "\"firesOn\"", "\"notificationInfo\"", "\"desiredKeys\"", "\"participants\"", "\"publicPermission\"",
        "\"parent\"", "\"action\"", "\"DELETE_SELF\"", "\"receipt\"", "\"fileChecksum\"", "\"size\"",
    ]) { bytes in
        do {
            let body = try JSON.parse(Data(bytes))
            var outcome: [String] = []
            do { _ = try WireDecoding.record(body["record"],
                                             defaultZone: ZoneID(zoneName: ZoneID.defaultZoneName)) } catch { outcome.append(describe(error)) }
            do { _ = try WireDecoding.query(body["query"], zone: nil, limit: 200, marker: nil,
                                            desiredKeys: nil) } catch { outcome.append(describe(error)) }
            do {
                let doc = try Subscription.normalized(body["subscription"], id: "s")
                for scope in DatabaseScope.allCases { _ = try? Subscription(wire: doc, id: "s", database: scope) }
            } catch { outcome.append(describe(error)) }
            do { _ = try WireDecoding.shareRequest(body["record"]) } catch { outcome.append(describe(error)) }
            // The first refusal and how many: every combination of four decoders' messages would be a corpus of its
            // own.
            return "\(outcome.first ?? "ok") +\(outcome.count)"
        } catch { return describe(error) }
    }

    /// Equal JSON values, numbers compared as numbers (the writer spells an integral double as an integer).
    static func same(_ a: JSON, _ b: JSON) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)): x.count == y.count && x.allSatisfy { k, v in y[k].map { same(v,
                $0) } ?? false }
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double): a.double == b.double
        default: a == b
        }
    }

    static func kind(_ j: JSON) -> String {
        switch j {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .array(let a): "array \(a.first.map(kind) ?? "")"
        case .object(let o): "object \(min(o.count, 3))"
        }
    }

    static let ckdb = FuzzTarget("ckdb", dictionary: [
        "DEFINE SCHEMA", "CREATE ROLE ", "RECORD TYPE ", "(", ")", ";", ",", "GRANT ", "READ", "WRITE", "CREATE", " TO ", "\"_world\"",
        "STRING", "INT64", "DOUBLE", "BYTES", "TIMESTAMP", "REFERENCE", "ASSET", "LOCATION", "LIST<", ">", "ENCRYPTED ", "NUMBER",
        " PREFERRED AS ", "QUERYABLE", "SORTABLE", "SEARCHABLE", "//", "--", "/*", "*/", "\"", "\"___recordID\"",
    ]) { bytes in
        do {
            let schema = try SchemaParser.parse(String(decoding: bytes, as: UTF8.self))
            // What is printed of a parsed schema parses back to it.
            let again = try SchemaParser.parse(SchemaPrinter.print(schema))
            precondition(again.normalized == schema.normalized, "ckdb round trip")
            return "ok \(min(schema.recordTypes.count, 3))"
        } catch { return describe(error) }
    }

    /// The console's records page query, as it comes in the URL.
    static let consoleQuery = FuzzTarget("console-query", dictionary: [
        "type=Item", "&filter=", "&sort=", "&fields=", "&continue=", "&f=", "&op=", "&v=", "&s=", "&order=desc", "+EQUALS+", "+NEAR+",
        "+IN+", "+LIST_CONTAINS+", "+BEGINS_WITH+", "+LESS_THAN+", "title", "count", "price", "at", "place", "tags", "nums", "owner",
        "___createTime", "___recordID", "%2C", ",", "2024-01-01T00:00:00Z",
    ]) { bytes in
        let items = HTTPRequest.formItems(String(decoding: bytes, as: UTF8.self))
        do {
            _ = try ConsoleQuery(items).query(item)
            return "ok"
        } catch { return describe(error) }
    }

    static let ndjson = FuzzTarget("ndjson", dictionary: [
        "{\"recordName\":", "\"recordType\":\"Item\"", "\"fields\":{", "\"value\":", "\"type\":", "\"zoneID\":{\"zoneName\":", "\"parent\":",
        "\"STRING\"", "\"TIMESTAMP\"", "\"INT64_LIST\"", "\"LOCATION\"", "\"REFERENCE\"", "\"ASSETID\"", "\"created\":{\"timestamp\":",
    ]) { bytes in
        do {
            let record = try RecordLines.decode(Data(bytes))
            _ = RecordLines.encode(record)
            return "ok \(min(record.fields.count, 3))"
        } catch { return describe(error) }
    }

    /// The first line is the header, the rest one row.
    static let csv = FuzzTarget("csv", dictionary: [
        "recordName", "zoneName", "title", "count", "price", "at", "owner", "place", "tags", "nums", "blob", ",", "\"", "\"\"", "\r\n",
        "'", "=", "[1,2]", "{\"latitude\":1,\"longitude\":2}", "2024-01-01T00:00:00Z",
    ]) { bytes in
        let cut = Mutator.find([10], in: bytes)
        guard let header = RecordCSV.cells(Array(bytes[..<(cut?.lowerBound ?? bytes.count)])) else { return "header refused" }
        do {
            let reader = try RecordCSV(header: header, type: item)
            guard let row = RecordCSV.cells(Array(bytes[(cut?.upperBound ?? bytes.count)...])) else { return "row refused" }
            _ = try reader.record(row)
            return "ok"
        } catch { return describe(error) }
    }
}
