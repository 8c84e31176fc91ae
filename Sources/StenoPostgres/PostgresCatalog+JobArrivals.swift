import Foundation
import Logging
import PostgresNIO
import StenoCatalog

/// Idle workers of every daemon wake when any daemon enqueues: an enqueue that adds a job
/// sends `NOTIFY steno_jobs` in its transaction (delivered on commit), and each daemon keeps
/// one pooled connection listening on that channel.
extension PostgresCatalog: JobArrivalStore {
    /// The channel enqueues notify.
    static let jobArrivalChannel = "steno_jobs"

    /// The first wait before listening again after the connection was lost; it doubles while
    /// listening keeps failing, up to ``longestListenRetry``.
    static let firstListenRetry: Duration = .milliseconds(250)
    static let longestListenRetry: Duration = .seconds(10)

    public func watchJobArrivals(_ arrived: @escaping @Sendable () -> Void) async throws {
        var backoff = Self.firstListenRetry
        var failing = false
        while !Task.isCancelled {
            do {
                // Bounded by connect_timeout: while the server is down each try fails in time
                // and the loop backs off, rather than waiting in the pool's queue.
                try await withLeasedConnection { connection in
                    guard !connection.isClosed else { throw ClosedConnectionError() }
                    try await connection.listen(on: Self.jobArrivalChannel) { notifications in
                        if failing { logger.notice("listening for new jobs again") }
                        failing = false
                        backoff = Self.firstListenRetry
                        // Listening now: anything enqueued while we were not is claimable already.
                        arrived()
                        for try await _ in notifications { arrived() }
                    }
                }
            } catch where !Task.isCancelled {
                // Once per outage; idle workers poll meanwhile, so nothing waits for this.
                let metadata: Logger.Metadata = ["error": "\(mapped(error))", "retry_in": "\(backoff)"]
                if failing {
                    logger.debug("listening for new jobs failed again", metadata: metadata)
                } else {
                    logger.warning("listening for new jobs failed; idle workers poll until it is back", metadata: metadata)
                }
                failing = true
            } catch {
                return
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, Self.longestListenRetry)
        }
    }
}
