import Synchronization

/// One result slot per item of a batch, filled from any thread: work spread over a thread
/// pool writes each outcome in place instead of passing it back through task results.
final class ResultSlots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Result<Value, any Error>?]>

    /// `count` empty slots.
    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    /// Fills slot `index` (an index outside the batch is ignored).
    func set(_ index: Int, _ result: Result<Value, any Error>) {
        slots.withLock { slots in
            if slots.indices.contains(index) { slots[index] = result }
        }
    }

    /// Whether slot `index` was filled.
    func isSet(_ index: Int) -> Bool {
        slots.withLock { $0.indices.contains(index) && $0[index] != nil }
    }

    /// Every slot's result, `missing(index)` for a slot never filled.
    func values(missing: (Int) -> Result<Value, any Error>) -> [Result<Value, any Error>] {
        slots.withLock { slots in slots.enumerated().map { $0.element ?? missing($0.offset) } }
    }
}
