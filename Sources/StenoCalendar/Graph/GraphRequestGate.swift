import Foundation

/// At most N requests in flight per mailbox: Exchange throttles a mailbox that sees more than
/// four concurrent requests from one application (MailboxConcurrency), answering 429.
actor GraphRequestGate {
    private let limit: Int
    private var inFlight: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Runs `body` once the mailbox has a free slot.
    func run<T: Sendable>(mailbox: String, _ body: @Sendable () async throws -> T) async throws -> T {
        await acquire(mailbox)
        defer { release(mailbox) }
        return try await body()
    }

    /// The most requests seen in flight for one mailbox (tests check the limit held).
    private(set) var peak = 0

    private func acquire(_ mailbox: String) async {
        if inFlight[mailbox, default: 0] < limit {
            inFlight[mailbox, default: 0] += 1
        } else {
            // The slot is handed over by `release`, which keeps the count as it is.
            await withCheckedContinuation { waiting[mailbox, default: []].append($0) }
        }
        peak = max(peak, inFlight[mailbox, default: 0])
    }

    private func release(_ mailbox: String) {
        if var queue = waiting[mailbox], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[mailbox] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            inFlight[mailbox, default: 1] -= 1
            if inFlight[mailbox] == 0 { inFlight[mailbox] = nil }
        }
    }
}
