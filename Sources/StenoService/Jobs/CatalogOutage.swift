import Foundation
import Logging
import StenoCatalog
import Synchronization

/// How one of the daemon's background loops (the job workers, the inbox lease, the scheduler)
/// lives through a catalog database that cannot be reached (`StoreError.unavailable`, a
/// PostgreSQL server that is down): the first failure of an outage is logged at warning, the
/// rest at debug, the first success after it once at notice; in between the loop waits
/// ``retryDelay`` between tries, growing with the outage, and resumes by itself.
final class CatalogOutage: Sendable {
    /// Who waits, for the log: "job workers", "inbox lease".
    let loop: String
    let logger: Logger
    /// The first wait after a failure; it doubles per failure of the same outage.
    let firstDelay: Duration
    /// The longest wait: how late a loop may notice that the database is back.
    let longestDelay: Duration

    private struct State {
        var failures = 0
        var since: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    init(loop: String, logger: Logger, firstDelay: Duration = .milliseconds(250), longestDelay: Duration = .seconds(5)) {
        self.loop = loop
        self.logger = logger
        self.firstDelay = firstDelay
        self.longestDelay = longestDelay
    }

    /// Whether `error` means the catalog's database cannot be reached now.
    static func isUnreachable(_ error: any Error) -> Bool {
        (error as? StoreError)?.isUnavailable == true
    }

    /// Records a failure. True when the database is unreachable (logged here, once per outage;
    /// the caller waits ``retryDelay`` and tries again); false for any other error, which the
    /// caller reports itself.
    func failed(_ error: any Error) -> Bool {
        guard Self.isUnreachable(error) else { return false }
        let first = state.withLock { state in
            state.failures += 1
            guard state.since == nil else { return false }
            state.since = .now
            return true
        }
        if first {
            logger.warning("\(loop) wait for the catalog database: \(error)")
        } else {
            logger.debug("\(loop): the catalog database is still unreachable")
        }
        return true
    }

    /// Records a success: ends an outage, logging how long it lasted.
    func succeeded() {
        let since = state.withLock { state -> ContinuousClock.Instant? in
            defer { state = State() }
            return state.since
        }
        guard let since else { return }
        let seconds = (ContinuousClock.now - since).components.seconds
        logger.notice("\(loop) reach the catalog database again (unreachable for about \(seconds) s)")
    }

    /// Whether an outage is going on.
    var isOngoing: Bool { state.withLock { $0.since != nil } }

    /// The wait before the next try: ``firstDelay`` doubled per failure of this outage, at most
    /// ``longestDelay``.
    var retryDelay: Duration {
        let failures = state.withLock { $0.failures }
        var delay = firstDelay
        for _ in 0..<max(0, min(failures - 1, 16)) where delay < longestDelay { delay *= 2 }
        return min(delay, longestDelay)
    }
}
