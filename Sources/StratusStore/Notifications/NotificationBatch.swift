import Foundation
import StratusModel

/// How the notification log is stored: one row per write transaction (`notification_batches`), holding every
/// notification the transaction fired, and the users they are for. A commit then appends one row at the end of
/// one table, instead of a row and an index entry per notification in the middle of a per-user index: the
/// notifications of a 200-record write cost a small fraction of the write. A listener reads on from its position
/// through the rows that name its user (`instr` over the users column), which for a live listener is the last
/// few transactions.
///
/// A notification's position is `batch << 20 | index` (positions only grow); its `nid` spells the position and
/// the environment's salt as a UUID, so a `Last-Event-ID` finds its place without an index.
enum NotificationBatch {
    static let indexBits: Int64 = 20
    static let maximumPerBatch = 1 << 20

    struct Entry {
        var user: String
        var subscriptionID: String
        var scope: String
        var recordName: String?
        var reason: Int?
        /// `aps` (its JSON, or `@` and a reference to it: see `NotificationInfos`) and the `ck` member of the
        /// notification's kind (see `NotificationPayload.member`).
        var aps: String
        var member: String

        /// The notification as clients get it, given its `aps` JSON (resolved from the reference the log keeps).
        func payload(nid: String, aps: String, container: ContainerID, environment: Environment) -> String {
            NotificationPayload.render(aps: aps, member: member, nid: nid, container: container, environment: environment, user: user)
        }
    }

    static func position(batch: Int64, index: Int) -> Int64 { batch << indexBits | Int64(index) }
    static func batch(of position: Int64) -> Int64 { position >> indexBits }
    /// The last position a batch can hold (everything in it is at or before this).
    static func end(of batch: Int64) -> Int64 { batch << indexBits | Int64(maximumPerBatch - 1) }

    /// The users column: each user between separators, so `instr(users, separated(user))` finds exactly one.
    static func users(_ entries: [Entry]) -> String {
        var seen = Set<String>()
        var out = "\u{1}"
        for e in entries where seen.insert(e.user).inserted { out += e.user + "\u{1}" }
        return out
    }

    static func separated(_ user: String) -> String { "\u{1}" + user + "\u{1}" }

    /// The entries, one line each: `user TAB subscriptionID TAB scope TAB recordName TAB reason TAB aps TAB member`,
    /// where the first five escape `%`, TAB and LF as `%25`, `%09`, `%0A` (an absent value is empty) and the last two,
    /// JSON written by `PayloadJSON`, hold no raw control characters. A reader picks its user's lines by their start,
    /// without parsing anyone else's.
    static func encode(_ entries: [Entry]) -> String {
        var out = ""
        for e in entries {
            out += escape(e.user) + "\t" + escape(e.subscriptionID) + "\t" + escape(e.scope) + "\t" + (e.recordName.map { "=" + escape($0) } ?? "")
                + "\t" + (e.reason.map(String.init) ?? "") + "\t" + e.aps + "\t" + e.member + "\n"
        }
        return out
    }

    static func decode(_ text: String) -> [Entry] { entries(text, of: nil).map(\.1) }

    /// The entries of `user` (all with nil) with their index in the batch. Works on the UTF-8 bytes: a listener's
    /// read skips other users' lines by their first bytes.
    static func entries(_ text: String, of user: String?) -> [(Int, Entry)] {
        let prefix = user.map { Array((escape($0) + "\t").utf8) }
        var out: [(Int, Entry)] = []
        var text = text
        text.withUTF8 { bytes in
            var index = 0
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 10 { end += 1 }
                defer { start = end + 1; index += 1 }
                if let prefix {
                    guard end - start >= prefix.count, prefix.indices.allSatisfy({ bytes[start + $0] == prefix[$0] }) else { continue }
                }
                var fields: [String] = []
                var f = start
                while fields.count < 6 {
                    var t = f
                    while t < end && bytes[t] != 9 { t += 1 }
                    guard t < end else { break }
                    fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[f..<t]), as: UTF8.self))
                    f = t + 1
                }
                guard fields.count == 6 else { continue }
                let member = String(decoding: UnsafeBufferPointer(rebasing: bytes[f..<end]), as: UTF8.self)
                out.append((index, Entry(user: unescape(fields[0][...]), subscriptionID: unescape(fields[1][...]), scope: unescape(fields[2][...]),
                                         recordName: fields[3].isEmpty ? nil : unescape(fields[3].dropFirst()), reason: Int(fields[4]),
                                         aps: fields[5], member: member)))
            }
        }
        return out
    }

    private static func escape(_ s: String) -> String {
        guard s.contains(where: { $0 == "%" || $0 == "\t" || $0 == "\n" || $0 == "\r\n" }) else { return s }
        return s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\t", with: "%09").replacingOccurrences(of: "\n", with: "%0A")
            .replacingOccurrences(of: "\r\n", with: "%0D%0A")
    }

    private static func unescape(_ s: Substring) -> String {
        guard s.contains("%") else { return String(s) }
        return s.replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A", with: "\n").replacingOccurrences(of: "%09", with: "\t")
            .replacingOccurrences(of: "%25", with: "%")
    }

    /// The notification ID of a position: `ssssssss-ssss-ssss-pppp-pppppppppppp` (salt, then position).
    static func nid(salt: UInt64, position: Int64) -> String {
        let hex = String(salt, radix: 16).leftPadded(16) + String(UInt64(bitPattern: position), radix: 16).leftPadded(16)
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }

    /// The position a notification ID spells, if it is one of this environment's.
    static func position(nid: String, salt: UInt64) -> Int64? {
        let hex = nid.lowercased().replacingOccurrences(of: "-", with: "")
        guard hex.count == 32, nid.count == 36, let s = UInt64(hex.prefix(16), radix: 16), s == salt,
              let p = UInt64(hex.suffix(16), radix: 16) else { return nil }
        return Int64(bitPattern: p)
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
