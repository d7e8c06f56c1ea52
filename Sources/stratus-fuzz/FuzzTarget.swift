/// One parser (or the whole server) the fuzzer feeds: its name (the corpus folder's), the tokens of its language the
/// mutator splices in, the longest input worth trying, and what running one input came to (`outcome`): inputs with an
/// outcome not seen before join the corpus, the cheapest stand-in for coverage a build without instrumentation has.
struct FuzzTarget: Sendable {
    let name: String
    let dictionary: [[UInt8]]
    let maxLength: Int
    /// Runs one input; returns a short description of what happened (an error's kind, a parse's shape).
    let run: @Sendable ([UInt8]) -> String

    init(_ name: String, maxLength: Int = 16 * 1024, dictionary: [String],
         run: @escaping @Sendable ([UInt8]) -> String) {
        self.name = name
        self.maxLength = maxLength
        self.dictionary = dictionary.map { Array($0.utf8) }
        self.run = run
    }

    /// An outcome with what the input put in it dropped: up to the first quote (where messages quote the input) and
    /// without numbers, so that "field 'a'" and "field 'b'" are one outcome.
    static func outcome(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if u == "'" || u == "\"" || u == "(" || out.count >= 80 { break }
            if !("0"..."9").contains(u) { out.append(u) }
        }
        return String(out)
    }
}
