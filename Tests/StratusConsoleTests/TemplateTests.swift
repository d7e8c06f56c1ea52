import Foundation
import Testing
@testable import StratusConsole
@testable import StratusTemplates

/// The console's mustache subset: escaping, sections over lists/flags/objects, inverted sections, partials,
/// lookups that climb the context stack, and errors for malformed templates.
@Suite struct TemplateTests {
    @Test func rendersTheSubsetPagesUse() throws {
        let lib = try TemplateLibrary([
            "page": "<h1>{{title}}</h1>{{#rows}}<p>{{name}}:{{#flag}}on{{/flag}}{{^flag}}off{{/flag}} {{owner}}</p>{{/rows}}{{^rows}}none{{/rows}}{{> foot}}{{{raw}}}{{a.b}}{{#list}}[{{.}}]{{/list}}",
            "foot": "<footer>{{title}}</footer>",
        ])
        struct Row: Encodable {
            let name: String
            let flag: Bool
            var owner: String?
        }
        struct Nested: Encodable { let b: String }
        struct Page: Encodable {
            let title, owner, raw: String
            let a: Nested
            let list: [String]
            let rows: [Row]
        }
        let view = Page(title: "<script>\"x\"&'y'", owner: "outer", raw: "<b>ok</b>", a: Nested(b: "dotted"), list: ["1", "2"],
                        rows: [Row(name: "one", flag: true), Row(name: "two", flag: false, owner: "inner")])
        let html = lib.render("page", TemplateEncoder.encode(view))
        // A nil member is left out, so the row looks `owner` up outside; OrFalse keeps it from doing so.
        #expect(html == "<h1>&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;</h1><p>one:on outer</p><p>two:off inner</p>"
            + "<footer>&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;</footer><b>ok</b>dotted[1][2]")
        struct Empty: Encodable {
            let rows: [Row]
            let title: String
        }
        #expect(lib.render("page", TemplateEncoder.encode(Empty(rows: [], title: "t")))?.hasPrefix("<h1>t</h1>none") == true)
        #expect(lib.render("missing", TemplateEncoder.encode(Empty(rows: [], title: ""))) == nil)
        struct Shielded: Encodable {
            let name: String
            let flag: OrFalse<Bool>
            let owner: OrFalse<String>
        }
        struct Outer: Encodable {
            let title, owner: String
            let rows: [Shielded]
        }
        let shielded = lib.render("page", TemplateEncoder.encode(Outer(title: "t", owner: "outer", rows: [Shielded(name: "x", flag: .init(nil), owner: .init(nil))])))
        #expect(shielded?.contains("<p>x:off </p>") == true, "\(shielded ?? "")")
    }

    /// Sections end where their closing tag is at every depth (the body of each is the operations up to its end),
    /// a partial that includes itself stops, a missing partial draws nothing, and a dotted name that breaks off
    /// midway draws nothing.
    @Test func nestedSectionsPartialsAndPathsDrawWhereTheyStand() throws {
        let lib = try TemplateLibrary([
            "page": "a{{#outer}}<{{#inner}}[{{#items}}{{.}}{{^last}},{{/last}}{{/items}}]{{/inner}}{{^inner}}-{{/inner}}>{{/outer}}z"
                + "{{> missing}}|{{x.y.z}}|{{x.y}}|{{> again}}",
            "again": "({{depth}}{{#more}}{{> again}}{{/more}})",
        ])
        let root = TemplateValue.named([
            "outer": .list([
                .named(["inner": .named(["items": .list([.string("1"), .string("2")]), "last": .bool(false)])]),
                .named(["inner": .bool(false)]),
            ]),
            "x": .named(["y": .string("why")]),
            "depth": .string("d"),
            "more": .bool(true),
        ])
        let html = try #require(lib.render("page", root))
        // Inside `items` the context is a string, so `last` is found in `inner`'s object: false, hence a comma after
        // each item.
        #expect(html.hasPrefix("a<[1,2,]><->z||why|(d(d"), "\(html)")
        // An empty name names nothing, wherever it stands.
        #expect(try TemplateLibrary(["e": "[{{{}}}{{& }}{{# }}x{{/}}{{^ }}y{{/}}]"]).render("e", root) == "[y]")
        // 64 levels of the partial at most, then it stops.
        #expect(html.components(separatedBy: "(d").count - 1 < 64 && html.hasSuffix("))"), "\(html)")
    }

    @Test func malformedTemplatesAreRefusedAtStartUp() {
        #expect(throws: Template.SyntaxError.self) { try TemplateLibrary(["x": "{{#a}}no end"]) }
        #expect(throws: Template.SyntaxError.self) { try TemplateLibrary(["x": "{{#a}}{{/b}}"]) }
        #expect(throws: Template.SyntaxError.self) { try TemplateLibrary(["x": "{{unclosed"]) }
    }
}

@Suite struct CivilTimeTests {
    @Test func matchesFoundationAcrossTheCalendar() {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS"
        var x: UInt64 = 12345
        for _ in 0..<2000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let millis = Int64(x % 8_000_000_000_000) - 1_000_000_000_000
            #expect(CivilTime(millis).text(separator: "T") == f.string(from: Date(timeIntervalSince1970: Double(millis) / 1000)), "\(millis)")
        }
        #expect(CivilTime(0).text(separator: " ") == "1970-01-01 00:00:00.000")
        #expect(CivilTime(951_782_400_000).text(separator: "T") == "2000-02-29T00:00:00.000")
    }
}
