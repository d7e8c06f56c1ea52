/// The answers of an operation about several items, taken in the order the items were asked for: each goes through
/// the operation's per-item block as it is read, and what failed is kept for the partial failure CloudKit reports
/// at the end (`partialErrorsByItemID`). An item the server did not answer fails with `missing(id)`.
struct ItemResults<ID: Hashable, Value> {
    private(set) var succeeded: [(id: ID, value: Value)] = []
    private(set) var errors: [AnyHashable: any Error] = [:]

    init(_ ids: [ID], _ results: [ID: Result<Value, any Error>], missing: (ID) -> CKError, each: (ID, Result<Value,
            any Error>) -> Void) {
        for id in ids {
            let r = results[id] ?? .failure(missing(id))
            each(id, r)
            switch r {
            case .success(let v): succeeded.append((id, v))
            case .failure(let e): errors[id] = e
            }
        }
    }

    var values: [Value] { succeeded.map(\.value) }
    var ids: [ID] { succeeded.map(\.id) }
    var byID: [ID: Value] { Dictionary(succeeded.map { ($0.id, $0.value) }, uniquingKeysWith: { a, _ in a }) }

    /// The `.partialFailure` of these and `others` together (a modify's saves and deletes), nil when none failed.
    func failure(_ what: String, with others: [AnyHashable: any Error] = [:]) -> CKError? {
        partialFailure(errors.merging(others) { a, _ in a }, what)
    }
}

/// What an operation's result block receives for the whole: success, or the partial failure.
func outcome(_ failure: (any Error)?) -> Result<Void, any Error> {
    failure.map { .failure($0) } ?? .success(())
}

extension CKOperation {
    /// Runs an operation's work and tells how the whole went to its result block and to its deprecated completion
    /// block, as CloudKit calls both: `work` gives what the completion block receives and the partial failure, if
    /// any; a thrown error (cancellation included) reaches both blocks with nothing else.
    func finishing<Value>(result: (Result<Void, any Error>) -> Void, completion: (Value?, (any Error)?) -> Void,
                          _ work: () async throws -> (Value, CKError?)) async {
        do {
            try checkCancelled()
            let (value, failure) = try await work()
            result(outcome(failure))
            completion(value, failure)
        } catch {
            result(.failure(error))
            completion(nil, error)
        }
    }

    /// Asks for each item in turn (one request each), every answer through `each`, until the operation is cancelled.
    /// The whole: success, the partial failure of the items that failed (keyed by `key`), or cancelled.
    func eachInTurn<Item, Value>(_ items: [Item], key: (Item) -> AnyHashable, what: String,
                                 _ work: (Item) async throws -> Value,
                                 each: (Item, Result<Value, any Error>) -> Void) async -> Result<Void, any Error> {
        var errors: [AnyHashable: any Error] = [:]
        for item in items {
            if isCancelled { break }
            do {
                each(item, .success(try await work(item)))
            } catch {
                errors[key(item)] = error
                each(item, .failure(error))
            }
        }
        if isCancelled { return .failure(CKError.make(.operationCancelled, "the operation was cancelled")) }
        return outcome(partialFailure(errors, what))
    }
}
