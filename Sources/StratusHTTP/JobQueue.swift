/// First in, first out, for the jobs a pool's threads take: taken slots are dropped in bulk rather than shifted
/// one by one (a server's jobs can queue by the hundred).
struct JobQueue<Element> {
    private var items: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    /// The element `pop` would give.
    var first: Element? { isEmpty ? nil : items[head] }

    mutating func push(_ element: Element) { items.append(element) }

    mutating func pop() -> Element? {
        guard head < items.count else { return nil }
        defer {
            items[head] = nil
            head += 1
            if head == items.count { items.removeAll(keepingCapacity: true); head = 0 }
            else if head >= 1024 && head * 2 >= items.count { items.removeFirst(head); head = 0 }
        }
        return items[head]
    }
}
