import Foundation
import StratusModel
import Testing

/// A record's fields read, change and compare as the dictionary they used to be, whatever order they came in.
@Suite struct RecordFieldsTests {
    @Test func readsAndWritesByNameAsADictionaryDoes() {
        var fields: RecordFields = ["title": .string("a"), "count": .int64(1)]
        #expect(fields["title"] == .string("a"))
        #expect(fields["missing"] == nil)
        fields["body"] = .string("b")
        fields["title"] = .string("c")
        #expect(fields.count == 3)
        #expect(fields["title"] == .string("c"))
        fields["count"] = nil
        #expect(fields["count"] == nil && fields.count == 2)
        #expect(fields.removeValue(forKey: "body") == .string("b"))
        #expect(fields.removeValue(forKey: "body") == nil)
        #expect(fields.updateValue(.int64(2), forKey: "title") == .string("c"))
        #expect(fields.dictionary == ["title": .int64(2)])
    }

    @Test func theSameFieldsAreEqualAndHashAlikeHoweverTheyWereBuilt() {
        var forward = RecordFields(), backward = RecordFields()
        let names = (0..<40).map { "f\($0)" }
        for n in names { forward[n] = .string(n) }
        for n in names.reversed() { backward[n] = .string(n) }
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        #expect(Array(forward.keys) == names.sorted())
        backward["f3"] = .int64(3)
        #expect(forward != backward)
    }

    /// Names are compared as Swift compares strings (canonical equivalence), as a dictionary's keys are.
    @Test func canonicallyEquivalentNamesAreOneField() {
        var fields = RecordFields()
        fields["caf\u{E9}"] = .int64(1)
        fields["cafe\u{301}"] = .int64(2)
        #expect(fields.count == 1)
        #expect(fields["caf\u{E9}"] == .int64(2))
    }

    /// A sequence with one name twice keeps the later value, as assigning them in turn does.
    @Test func aRepeatedNameKeepsTheLaterValue() {
        let fields = RecordFields([(key: "b", value: .int64(1)), (key: "a", value: .int64(2)), (key: "b", value: .int64(3))])
        #expect(fields.count == 2)
        #expect(fields["b"] == .int64(3))
    }

    @Test func mergingKeepsEveryNameOnceAndAsksWhichValueWins() {
        let old: RecordFields = ["a": .int64(1), "c": .int64(3), "e": .int64(5)]
        let new: RecordFields = ["b": .int64(20), "c": .int64(30), "f": .int64(60)]
        let merged = old.merging(new) { _, n in n }
        #expect(merged.dictionary == ["a": .int64(1), "b": .int64(20), "c": .int64(30), "e": .int64(5), "f": .int64(60)])
        #expect(merged == RecordFields(old.dictionary.merging(new.dictionary) { _, n in n }))
        #expect(old.merging(new) { o, _ in o }["c"] == .int64(3))
    }

    @Test func filterAndMapValuesKeepTheType() {
        let fields: RecordFields = ["a": .int64(1), "b": .string("x"), "c": .int64(3)]
        let numbers: RecordFields = fields.filter { if case .int64 = $0.value { true } else { false } }
        #expect(Array(numbers.keys) == ["a", "c"])
        #expect(fields.mapValues { _ in .int64(0) }.dictionary == ["a": .int64(0), "b": .int64(0), "c": .int64(0)])
    }

    /// Random edits, the same on a dictionary and on the fields: the two always hold the same thing.
    @Test func randomEditsMatchADictionary() {
        var rng = SystemRandomNumberGenerator()
        var fields = RecordFields(), reference: [String: FieldValue] = [:]
        for step in 0..<20_000 {
            let name = "n\(Int.random(in: 0..<64, using: &rng))"
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: fields.removeValue(forKey: name); reference.removeValue(forKey: name)
            case 1: fields[name] = nil; reference[name] = nil
            default: fields[name] = .int64(Int64(step)); reference[name] = .int64(Int64(step))
            }
            #expect(fields[name] == reference[name])
        }
        #expect(fields.dictionary == reference)
        #expect(fields == RecordFields(reference))
        #expect(Array(fields.keys) == reference.keys.sorted())
    }
}
