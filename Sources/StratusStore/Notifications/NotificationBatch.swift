import Foundation
import StratusModel

/// How one recipient's notifications of one write transaction are stored (a row of `notification_log`, see
/// `NotificationLog`): a commit appends one row per user it notifies, not a row and an index entry per
/// notification. One user's thousand subscriptions that one change fires cost one line and a thousand subscription
/// IDs.
///
/// A notification's position is `batch << 20 | index` (its index within its user's row; positions only grow for a
/// user); its `nid` spells the position, the environment's salt and a tag of the user as a UUID, so a
/// `Last-Event-ID` finds its place without an index and two users' notifications never share an ID.
enum NotificationBatch {
    static let indexBits: Int64 = 20
    static let maximumPerBatch = 1 << 20

    /// What a user's notifications of one change share: the recipient, the database (`scope`), the record and
    /// the reason (`fo`) they are about, and `aps` (its JSON, or `@` and a reference to it: see `NotificationInfos`).
    struct Heading {
        var user, scope: String
        var recordName: String?
        var reason: Int?
        var aps: String
    }

    /// One notification: its heading, its subscription and the `ck` member of its kind (see
    /// `NotificationPayload.member`).
    @dynamicMemberLookup
    struct Entry {
        var heading: Heading
        var subscriptionID, member: String

        subscript<T>(dynamicMember field: KeyPath<Heading, T>) -> T { heading[keyPath: field] }

        /// The notification as clients get it, given its `aps` JSON (resolved from the reference the log keeps).
        func payload(nid: String, aps: String, container: ContainerID, environment: ContainerEnvironment) -> String {
            NotificationPayload.render(aps: aps, member: member, nid: nid, container: container,
                                       environment: environment, user: heading.user)
        }
    }

    /// Notifications of one user for one change, alike but for their subscription: what a write appends. One
    /// user's thousand subscriptions that one change fires cost one line and a thousand subscription IDs, not a
    /// thousand lines. `template` is the `ck` member with `placeholder` where the subscription ID goes (quoted);
    /// a template without one is the member as it is.
    struct Group {
        var heading: Heading
        var template: String
        var subscriptionIDs: [String]

        static let placeholder: Character = "\u{3}"
    }

    static func position(batch: Int64, index: Int) -> Int64 { batch << indexBits | Int64(index) }
    static func batch(of position: Int64) -> Int64 { position >> indexBits }
    /// The last position a batch can hold (everything in it is at or before this).
    static func end(of batch: Int64) -> Int64 { batch << indexBits | Int64(maximumPerBatch - 1) }

    /// Groups, one line each: `STX count TAB user TAB scope TAB recordName TAB reason TAB aps TAB template (TAB
    /// subscriptionID)…`, escaped as `encode(_: [Entry])` escapes; `count` notifications, at consecutive indexes.
    /// The leading STX tells a group from a line of one notification (written before groups, and by test sends).
    static func encode(_ groups: [Group]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(groups.reduce(0) { $0 + 256 + $1.subscriptionIDs.count * 16 })
        func add(_ s: String) { out += s.utf8 }
        for g in groups {
            let h = g.heading
            out.append(2)
            add(String(g.subscriptionIDs.count))
            out.append(9); add(escape(h.user))
            out.append(9); add(escape(h.scope))
            out.append(9); if let r = h.recordName { out.append(UInt8(ascii: "=")); add(escape(r)) }
            out.append(9); if let r = h.reason { add(String(r)) }
            out.append(9); add(h.aps)
            out.append(9); add(g.template)
            for id in g.subscriptionIDs { out.append(9); add(escape(id)) }
            out.append(10)
        }
        return String(decoding: out, as: UTF8.self)
    }


    /// The entries, one line each: `user TAB subscriptionID TAB scope TAB recordName TAB reason TAB aps TAB member`,
    /// where the first five escape `%`, TAB and LF as `%25`, `%09`, `%0A` (an absent value is empty) and the last two,
    /// JSON written by `JSONWriter`, hold no raw control characters. A reader picks its user's lines by their start,
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

    /// The entries of `user` (all with nil) with their index in the batch, past index `after` and at most `limit` of
    /// them. Works on the UTF-8 bytes: a reader skips other users' lines and what it has read already by their first
    /// bytes (a group's count says how many indexes it spans), and never builds more entries than it was asked for (a
    /// group of 200,000 notifications is one line; a page of 50 builds 50).
    static func entries(_ text: String, of user: String?, after: Int = -1, limit: Int = .max) -> [(Int, Entry)] {
        let prefix = user.map { Array((escape($0) + "\t").utf8) }
        var out: [(Int, Entry)] = []
        var text = text
        text.withUTF8 { bytes in
            var index = 0
            var start = 0
            func field(_ from: Int,
                       _ to: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<to]),
                                                     as: UTF8.self) }
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 10 { end += 1 }
                defer { start = end + 1 }
                var at = start
                var count = 1
                let grouped = bytes[start] == 2
                if grouped {
                    at += 1
                    var n = 0
                    while at < end && bytes[at] != 9 && n < maximumPerBatch { n = n * 10 + Int(bytes[at]) - 48; at += 1 }
                    count = max(1, min(n, maximumPerBatch))
                    at += 1
                }
                defer { index += count }
                if index + count - 1 <= after { continue }
                if out.count >= limit { break }
                if let prefix {
                    guard end - at >= prefix.count, prefix.indices.allSatisfy({ bytes[at + $0] == prefix[$0] }) else { continue }
                }
                // Fields up to the last fixed one; a group has its template and subscription IDs after them.
                var fields: [String] = []
                var f = at
                while f <= end {
                    var t = f
                    while t < end && bytes[t] != 9 { t += 1 }
                    fields.append(field(f, t))
                    f = t + 1
                    // A lone notification's member (the last field) may hold no TAB, but is read whole all the same.
                    if !grouped && fields.count == 6 { fields.append(field(f, max(f, end))); break }
                }
                if grouped {
                    guard fields.count == 6 + count else { continue }
                    expand(group: fields, count: count, at: index, after: after, limit: limit, into: &out)
                } else {
                    guard fields.count == 7 else { continue }
                    let heading = Heading(user: unescape(fields[0][...]), scope: unescape(fields[2][...]),
                                          recordName: fields[3].isEmpty ? nil : unescape(fields[3].dropFirst()), reason: Int(fields[4]), aps: fields[5])
                    out.append((index, Entry(heading: heading, subscriptionID: unescape(fields[1][...]),
                                             member: fields[6])))
                }
            }
        }
        return out
    }

    /// A group line's entries past index `after`, up to `limit` in `out`: each member is the group's template with
    /// the subscription ID in its placeholder.
    private static func expand(group fields: [String], count: Int, at index: Int, after: Int, limit: Int,
                               into out: inout [(Int, Entry)]) {
        let heading = Heading(user: unescape(fields[0][...]), scope: unescape(fields[1][...]),
                              recordName: fields[2].isEmpty ? nil : unescape(fields[2].dropFirst()), reason: Int(fields[3]), aps: fields[4])
        let template = fields[5]
        for j in max(0, after + 1 - index)..<count where out.count < limit {
            let id = unescape(fields[6 + j][...])
            var member = template
            if let p = template.firstIndex(of: Group.placeholder) {
                var quoted: [UInt8] = []
                JSONWriter.quote(id, into: &quoted)
                member.replaceSubrange(p...p, with: String(decoding: quoted, as: UTF8.self))
            }
            out.append((index + j, Entry(heading: heading, subscriptionID: id, member: member)))
        }
    }

    private static func escape(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == 9 || $0 == 10 }) else { return s }
        return s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\t",
                with: "%09").replacingOccurrences(of: "\n", with: "%0A")
            .replacingOccurrences(of: "\r\n", with: "%0D%0A")
    }

    private static func unescape(_ s: Substring) -> String {
        guard s.contains("%") else { return String(s) }
        return s.replacingOccurrences(of: "%0D", with: "\r").replacingOccurrences(of: "%0A",
                with: "\n").replacingOccurrences(of: "%09", with: "\t")
            .replacingOccurrences(of: "%25", with: "%")
    }

    /// A user's tag in notification IDs (FNV-1a of the name): positions are per user, IDs are not.
    static func tag(_ user: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in user.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// The notification ID of a user's position: `ssssssss-ssss-ssss-pppp-pppppppppppp` (salt and the user's tag,
    /// then position).
    static func nid(salt: UInt64, user: String, position: Int64) -> String {
        let hex = String(salt ^ tag(user), radix: 16).leftPadded(16) + String(UInt64(bitPattern: position),
                radix: 16).leftPadded(16)
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }

    /// The position a notification ID spells, if it is one of this environment's for `user`.
    static func position(nid: String, salt: UInt64, user: String) -> Int64? {
        let hex = nid.lowercased().replacingOccurrences(of: "-", with: "")
        guard hex.count == 32, nid.utf8.count == 36, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              let s = UInt64(hex.prefix(16), radix: 16), s == salt ^ tag(user),
              let p = UInt64(hex.suffix(16), radix: 16) else { return nil }
        return Int64(bitPattern: p)
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
