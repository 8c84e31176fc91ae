import Foundation
import PostgresNIO
import StenoStore

/// Idle workers of every daemon wake when any daemon enqueues: an enqueue that adds a job
/// sends `NOTIFY steno_jobs` in its transaction (delivered on commit), and each daemon keeps
/// one pooled connection listening on that channel.
extension PostgresCatalog: JobArrivalStore {
    /// The channel enqueues notify.
    static let jobArrivalChannel = "steno_jobs"

    public func watchJobArrivals(_ arrived: @escaping @Sendable () -> Void) async throws {
        var backoff: Duration = .milliseconds(250)
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.jobArrivalChannel) { notifications in
                        // Listening now: anything enqueued while we were not is claimable already.
                        arrived()
                        backoff = .milliseconds(250)
                        for try await _ in notifications { arrived() }
                    }
                }
            } catch where !Task.isCancelled {
                logger.warning(
                    "listening for new jobs failed; idle workers poll until it is back",
                    metadata: ["error": "\(Self.mapped(error))", "retry_in": "\(backoff)"])
            } catch {
                return
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(30))
        }
    }
}
