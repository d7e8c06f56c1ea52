import Foundation

/// Decodes a `Transfer-Encoding: chunked` body from bytes as they arrive, with no I/O of its own: the connection
/// feeds it its buffer and reads more when told to, and the fuzzer feeds it whole inputs. Every number it reads is
/// bounded before it is used, so no sequence of bytes can make it index outside the buffer.
package struct ChunkedDecoder {
    /// What the decoder needs next.
    package enum Progress: Equatable {
        /// More bytes: the buffer holds no complete line or chunk.
        case needMore
        /// A chunk of this many bytes was announced and fits the limit; the caller reserves room for it, then calls
        /// `step` again to read it.
        case announced(Int)
        /// The last chunk and the trailer were read: the body is complete.
        case finished
    }

    private enum State { case sizeLine, data(Int), trailer, done }

    /// A chunk-size line (size and extensions) may hold this many bytes.
    static let maxSizeLineBytes = 1024
    /// A chunk size is at most this many hex digits (4 GiB − 1, far past any endpoint's limit).
    static let maxSizeDigits = 8

    let limit, maxTrailerBytes: Int
    private var state = State.sizeLine
    private var trailerBytes = 0
    package private(set) var body = Data()

    package init(limit: Int, maxTrailerBytes: Int) {
        self.limit = limit
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// Consumes what it can of `buffer` (decoded bytes are taken out of it) and says what it needs next.
    package mutating func step(_ buffer: inout [UInt8]) throws(HTTPError) -> Progress {
        while true {
            switch state {
            case .sizeLine:
                guard let end = Self.crlf(in: buffer) else {
                    if buffer.count > Self.maxSizeLineBytes { throw HTTPError(.badRequest,
                            "malformed chunk size line") }
                    return .needMore
                }
                guard end <= Self.maxSizeLineBytes else { throw HTTPError(.badRequest, "malformed chunk size line") }
                let size = try Self.chunkSize(buffer[0..<end])
                buffer.removeSubrange(0..<(end + 2))
                if size == 0 { state = .trailer; continue }
                // `body.count` never passes `limit`, so the subtraction cannot overflow.
                guard size <= limit - body.count else {
                    throw HTTPError(.contentTooLarge, "request body is over this endpoint's limit of \(limit) bytes")
                }
                state = .data(size)
                return .announced(size)
            case .data(let size):
                guard buffer.count >= size + 2 else { return .needMore }
                guard buffer[size] == 13, buffer[size + 1] == 10 else { throw HTTPError(.badRequest,
                        "chunk not followed by CRLF") }
                body.append(contentsOf: buffer[0..<size])
                buffer.removeSubrange(0..<(size + 2))
                state = .sizeLine
            case .trailer:
                guard let end = Self.crlf(in: buffer) else {
                    if trailerBytes + buffer.count > maxTrailerBytes { throw HTTPError(.headersTooLarge,
                            "trailer too large") }
                    return .needMore
                }
                trailerBytes += end + 2
                if trailerBytes > maxTrailerBytes { throw HTTPError(.headersTooLarge, "trailer too large") }
                buffer.removeSubrange(0..<(end + 2))
                if end == 0 { state = .done; return .finished }
            case .done:
                return .finished
            }
        }
    }

    /// The size a chunk-size line announces: 1 to 8 ASCII hex digits, then nothing or `;` and extensions (which are
    /// ignored). No sign, no spaces, no other digits: `Int(_:radix:)` would take `-1` and `+1`, and `Character`'s
    /// idea of a hex digit takes fullwidth ones.
    static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        let digits = line.prefix { ASCIIHex.value($0) != nil }
        guard let size = ASCIIHex.integer(digits, maxDigits: maxSizeDigits) else { throw HTTPError(.badRequest,
                "malformed chunk size") }
        let i = digits.endIndex
        guard i == line.endIndex || line[i] == UInt8(ascii: ";") else { throw HTTPError(.badRequest,
                "malformed chunk size") }
        guard line[i...].allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else { throw HTTPError(.badRequest,
                "malformed chunk extension") }
        return size
    }

    /// The offset of the first CRLF in `buffer`, or nil.
    static func crlf(in buffer: [UInt8]) -> Int? {
        var i = 0
        while i + 1 < buffer.count {
            if buffer[i] == 13 && buffer[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }
}
