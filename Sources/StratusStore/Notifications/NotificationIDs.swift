import StratusModel
/// Webhook delivery IDs (`X-Stratus-Delivery`, the body's `notificationID`), spelled as lowercase UUIDs: 64 random bits
/// drawn once per
/// transaction, then a counter with the time in milliseconds. Unique (the random half differs per transaction,
/// the rest per notification) and cheap: Foundation's `UUID()` reads the system's random source every time.
/// Not secret: reading a notification needs its user's credentials, not its ID.
struct NotificationIDs {
    private let random, millis: UInt64
    private var counter: UInt64 = 0

    init() {
        var g = SystemRandomNumberGenerator()
        random = g.next()
        millis = UInt64(max(0, WallClock.nowMillis()))
    }

    mutating func next() -> String {
        counter &+= 1
        let high = (millis << 16) | (counter & 0xFFFF)
        let low = random ^ (counter >> 16)
        var hex = [UInt8](repeating: 0, count: 36)
        let digits = Array("0123456789abcdef".utf8)
        var i = 0
        for n in 0..<32 {
            if n == 8 || n == 12 || n == 16 || n == 20 { hex[i] = UInt8(ascii: "-"); i += 1 }
            let word = n < 16 ? high : low
            let shift = UInt64(60 - (n % 16) * 4)
            hex[i] = digits[Int((word >> shift) & 0xF)]
            i += 1
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
