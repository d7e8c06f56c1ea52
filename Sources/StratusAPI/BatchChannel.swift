import Foundation

/// Hands decoded batches from the import's reading thread to its writer: at most two wait, so the reader stays a
/// batch or two ahead and memory stays bounded. `cancel` (the writer stopped) makes the reader's next `put` fail
/// and waits until the reader has let go of the file.
final class BatchChannel: @unchecked Sendable {
    enum Item {
        case batch(RecordBatches.Batch)
        case end(lines: Int)
        case failed(any Error)
    }

    static let capacity = 2
    private let condition = NSCondition()
    private var items: [Item] = []
    private var cancelled = false
    private var producerDone = false

    /// Queues an item, waiting while the channel is full; false once the writer has cancelled.
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= Self.capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// The reader is done with the file.
    func finished() {
        condition.lock()
        producerDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the reader and waits for it to finish.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}
