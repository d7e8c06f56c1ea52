import Synchronization

/// The connections the server holds open, and the descriptors they take: at most `limit` in all (kept below the
/// process's descriptor limit, see `DescriptorLimit`) and `perAddress` from one client address. A connection over
/// either is answered 503 by the accept loop and closed, without a task or a thread spent on it.
///
/// At the total, a new connection may take the place of one that has sent nothing for `evictableAfter` (waiting for
/// its first byte or, kept alive, for its next request): a crowd of idle sockets then costs its owners their sockets
/// instead of costing everyone else theirs, as nginx reuses keep-alive connections when it runs out. The budget also
/// keeps every open connection's watchdog, so that one sweep a few times a second enforces all of their deadlines.
final class ConnectionBudget: Sendable {
    let limit, perAddress: Int
    /// How long a connection must have sent nothing before a newcomer may take its place at the total.
    static let evictableAfter: Duration = .milliseconds(250)
    /// Connections past `limit` that may be open while the ones they displaced close.
    let slack: Int

    private struct State {
        var slots: [ConnectionWatchdog] = []
        var slotOf: [ObjectIdentifier: Int] = [:]
        var byAddress: [String: Int] = [:]
        var refusedForAddress = 0, refusedForTotal = 0, evicted = 0, admitted = 0
    }
    private let state = Mutex(State())

    init(limit: Int, perAddress: Int) {
        self.limit = max(1, limit)
        self.perAddress = max(1, perAddress)
        slack = max(16, limit / 64)
    }

    enum Admission: Equatable { case admitted, overAddress, overTotal }

    /// Admits `watchdog`'s connection, or says which limit it is over. `exempt`: a trusted proxy, whose connections
    /// carry many clients' requests and count only toward the total.
    func admit(_ watchdog: ConnectionWatchdog, exempt: Bool, now: ContinuousClock.Instant = .now) -> Admission {
        state.withLock { s in
            let address = watchdog.address
            if !exempt && s.byAddress[address, default: 0] >= perAddress {
                s.refusedForAddress += 1
                return .overAddress
            }
            if s.slots.count >= limit {
                // At the total, an address already holding its fair share (the total over the addresses holding any)
                // is refused; another takes the place of an idle connection of the address that holds the most.
                let mine = s.byAddress[address, default: 0]
                let share = limit / max(1, s.byAddress.count + (mine == 0 ? 1 : 0))
                guard exempt || mine < share, s.slots.count < limit + slack, Self.evictOne(&s, now: now,
                        share: share) else {
                    s.refusedForTotal += 1
                    return .overTotal
                }
                s.evicted += 1
            }
            s.slotOf[ObjectIdentifier(watchdog)] = s.slots.count
            s.slots.append(watchdog)
            s.byAddress[address, default: 0] += 1
            s.admitted += 1
            return .admitted
        }
    }

    /// Wakes one connection that has been idle long enough, of an address over its `share`, preferring the address
    /// that holds the most, among a few chosen at random (the crowd that fills the budget holds most places and is
    /// mostly idle, so a few looks find one of its). Its place is given up when its task closes it.
    private static func evictOne(_ s: inout State, now: ContinuousClock.Instant, share: Int) -> Bool {
        var best: (watchdog: ConnectionWatchdog, held: Int)?
        for _ in 0..<32 {
            let w = s.slots[Int.random(in: 0..<s.slots.count)]
            let held = s.byAddress[w.address, default: 0]
            guard held > share || share == 0, held > (best?.held ?? 0), w.isIdle(for: evictableAfter,
                    now: now) else { continue }
            best = (w, held)
        }
        guard let best else { return false }
        best.watchdog.fire()
        return true
    }

    func release(_ watchdog: ConnectionWatchdog) {
        state.withLock { s in
            guard let i = s.slotOf.removeValue(forKey: ObjectIdentifier(watchdog)) else { return }
            let last = s.slots.removeLast()
            if i < s.slots.count {
                s.slots[i] = last
                s.slotOf[ObjectIdentifier(last)] = i
            }
            let left = s.byAddress[watchdog.address, default: 1] - 1
            s.byAddress[watchdog.address] = left > 0 ? left : nil
        }
    }

    /// Every open connection's watchdog.
    var open: [ConnectionWatchdog] { state.withLock { $0.slots } }
    var count: Int { state.withLock { $0.slots.count } }

    /// Fires every connection whose deadline has passed.
    func sweep(now: ContinuousClock.Instant = .now) {
        for w in open { _ = w.check(now) }
    }

    var figures: ConnectionFigures {
        state.withLock { s in
            ConnectionFigures(open: s.slots.count, limit: limit, perAddress: perAddress,
                              refusedForAddress: s.refusedForAddress,
                              refusedForTotal: s.refusedForTotal, evicted: s.evicted)
        }
    }
}
