import Foundation
import StratusModel
import StratusTemplates
import Testing
@testable import StratusConsole

/// The record page's views draw their template values by hand (`TemplateRepresentable`); each must be exactly
/// what `Encodable` makes of it, or a member added to a view and left out of its hand-drawn value would vanish from
/// the page without a compile error.
@Suite struct ConsoleTemplateValueTests {
    static let values: [FieldValue] = [
        .string("a <b> & c"), .int64(-42), .double(2.5), .timestamp(Timestamp(millisSince1970: 1_700_000_000_123)),
        .bytes(Data([0, 1, 254, 255])), .reference(Reference(recordName: "r1")),
        .reference(Reference(recordName: "r2", zoneID: ZoneID(zoneName: "Z"), action: .deleteSelf)),
        .asset(AssetValue(fileChecksum: "abc", size: 2_000_000)),
        .location(Location(latitude: 1.5, longitude: -2.25)),
        .location(Location(latitude: 1.5, longitude: -2.25, horizontalAccuracy: 3, altitude: 100)),
        .list(.string, [.string("x"), .string("y")]), .list(.int64, []),
        .list(.reference, [.reference(Reference(recordName: "r3"))]),
    ]

    func detail(_ v: FieldValue) -> ValueDisplay.Detail {
        ValueDisplay.detail(v, link: { "/link/\($0.recordName)" }, assetLink: { "/asset/\($0.fileChecksum)" },
                            assetType: { _ in "image/png" })
    }

    @Test func everyValueDetailIsDrawnAsItsEncodableForm() {
        for v in Self.values {
            let d = detail(v)
            #expect(TemplateEncoder.encode(d) == TemplateEncoder.encodeByCoding(d), "\(v)")
        }
    }

    @Test func recordFieldsAreDrawnAsTheirEncodableForm() {
        let fields = [DataPages.RecordView.Field(name: "title", type: "STRING", value: detail(.string("t"))),
                      DataPages.RecordView.Field(name: "secret", type: "STRING", encrypted: true),
                      DataPages.RecordView.Field(name: "none", type: "INT64", empty: true)]
        for f in fields { #expect(TemplateEncoder.encode(f) == TemplateEncoder.encodeByCoding(f), "\(f.name)") }
    }

    @Test func everyKindOfInputIsDrawnAsItsEncodableForm() throws {
        let schema = try SchemaParser.parse("""
            DEFINE SCHEMA
                RECORD TYPE Everything (
                    "___recordID" REFERENCE QUERYABLE,
                    s STRING, i INT64, d DOUBLE, t TIMESTAMP, b BYTES, r REFERENCE, l LOCATION, a ASSET,
                    tags LIST<STRING>, refs LIST<REFERENCE>, secret ENCRYPTED STRING
                );
            """)
        let type = try #require(schema.recordTypes.first { $0.name == "Everything" })
        let record = StoredRecord(recordName: "e", recordType: "Everything", fields: [
            "s": .string("x"), "i": .int64(1), "t": .timestamp(Timestamp(millisSince1970: 5)),
            "r": .reference(Reference(recordName: "o", action: .deleteSelf)), "l": .location(Location(latitude: 1, longitude: 2)),
            "a": .asset(AssetValue(fileChecksum: "c", size: 3)), "tags": .list(.string, [.string("p"), .string("q")]),
            "secret": .string("ciphertext"),
        ])
        for r in [record, nil] {
            let inputs = RecordForm.inputs(for: type, record: r)
            #expect(inputs.count == type.userFields.count)
            for input in inputs {
                #expect(TemplateEncoder.encode(input) == TemplateEncoder.encodeByCoding(input), "\(input.name)")
            }
        }
    }

    /// A page's frame over its view: the later of a name given twice is what the template and JSON see.
    @Test func aNameGivenTwiceIsTheLater() throws {
        struct Twice: Encodable {
            struct A: Encodable { let title = "view" }
            struct B: Encodable { let title = "frame" }
            func encode(to encoder: any Encoder) throws { try A().encode(to: encoder); try B().encode(to: encoder) }
        }
        let v = TemplateEncoder.encode(Twice())
        #expect(v["title"]?.text == "frame")
        let library = try TemplateLibrary(["t": "{{title}}"])
        #expect(library.render("t", v) == "frame")
        let json = try JSONEncoder().encode(v)
        #expect(String(decoding: json, as: UTF8.self) == #"{"title":"frame"}"#)
    }
}
