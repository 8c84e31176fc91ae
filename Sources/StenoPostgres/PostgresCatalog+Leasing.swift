import Foundation
import PostgresNIO
import StenoCatalog
import Synchronization

/// Every statement borrows a pooled connection through ``PostgresCatalog/withLeasedConnection(_:)``,
/// which bounds the wait for one.
///
/// While the server is down, the pool queues requests for a connection for up to a minute (then
/// fails them at once until a connection works again) and keeps reconnecting with its own
/// backoff. A request should instead hear within `connect_timeout` that the catalog is
/// unreachable: an RPC answers a clear error and a worker backs off, rather than both hanging.
extension PostgresCatalog {
    /// Runs `body` on a pooled connection. Waiting for the connection is bounded by
    /// `connect_timeout`; once `body` runs, it runs to its end (a long query is not cut short).
    ///
    /// - Throws: `StoreError.unavailable` when no connection could be had in time or the pool
    ///   failed to make one; `body`'s own error otherwise.
    func withLeasedConnection<Value: Sendable>(_ body: (PostgresConnection) async throws -> Value) async throws -> Value {
        let client = self.client, limit = settings.connectTimeout
        let race = LeaseRace()
        return try await withoutActuallyEscaping(body) { body in
            // The body runs in one child task while this task waits for it; nothing else calls it.
            nonisolated(unsafe) let body = body
            return try await withThrowingTaskGroup(of: Value?.self) { group in
                group.addTask {
                    do {
                        return try await client.withConnection { connection in
                            guard race.lease() else { throw CancellationError() }
                            return try await body(connection)
                        }
                    } catch where !race.isLeased && Task.isCancelled {
                        // Given up (by the caller or the deadline): the pool's own word for it is no news.
                        throw CancellationError()
                    } catch where !race.isLeased {
                        // The pool gave up before lending a connection (its circuit breaker).
                        throw unreachable("\(Self.reason(error))")
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: limit)
                    return nil
                }
                while let next = try await group.next() {
                    if let value = next {
                        group.cancelAll()
                        return value
                    }
                    if race.abandon() {
                        group.cancelAll()
                        throw unreachable("no connection within \(limit)")
                    }
                }
                // Only when this task is cancelled while the body was still to finish.
                throw CancellationError()
            }
        }
    }

    /// The error every caller sees while the server cannot be reached: which server, why, and
    /// that the daemon keeps trying.
    func unreachable(_ reason: String) -> StoreError {
        .unavailable(
            "the catalog database at \(settings.redactedURL) is unreachable: \(reason); the daemon keeps reconnecting, try again later")
    }

    /// Why a connection failed, in words (PostgresNIO's own description names only its code).
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}

/// Settles the race between lending a connection and giving up waiting for one: exactly one
/// of ``lease()`` and ``abandon()`` wins, so a connection lent at the last moment is not used by
/// a request whose caller has been told the catalog is unreachable.
final class LeaseRace: Sendable {
    private enum State { case waiting, leased, abandoned }
    private let state = Mutex(State.waiting)

    /// True when the connection may be used (nobody gave up first).
    func lease() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .leased
            return true
        }
    }

    /// True when the wait is given up (no connection was lent first).
    func abandon() -> Bool {
        state.withLock { state in
            guard state == .waiting else { return false }
            state = .abandoned
            return true
        }
    }

    /// Whether a connection was lent.
    var isLeased: Bool { state.withLock { $0 == .leased } }
}
