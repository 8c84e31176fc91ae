import Foundation
import Logging
import PostgresNIO
import StenoCatalog

/// How store methods talk to the server: one statement on any pooled connection, or several
/// in one transaction on one connection. Both turn the server's errors into `StoreError` where
/// the caller can act on them (a unique key taken, a row that does not exist).
extension PostgresCatalog {
    /// The rows of one statement, read to the end.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = self.logger
        do {
            return try await withLeasedConnection { connection in try await PostgresTransaction.rows(query, on: connection, logger: logger) }
        } catch {
            throw mapped(error)
        }
    }

    /// Runs one statement, ignoring any rows.
    func execute(_ query: PostgresQuery) async throws {
        _ = try await rows(query)
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws
    /// (rethrowing its error). A serialization failure or deadlock, which a concurrent daemon
    /// can cause, is retried a few times from the start.
    func transaction<Result: Sendable>(_ body: (PostgresTransaction) async throws -> Result) async throws -> Result {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withLeasedConnection { connection in
                    let transaction = PostgresTransaction(connection: connection, logger: logger)
                    try await transaction.execute("BEGIN")
                    do {
                        let result = try await body(transaction)
                        try await transaction.execute("COMMIT")
                        return result
                    } catch {
                        // A failed rollback leaves a broken connection, which the pool replaces.
                        try? await transaction.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch let error as PSQLError where attempt < 5 && Self.isRetryable(error) {
                continue
            } catch {
                throw mapped(error)
            }
        }
    }

    /// The SQLSTATE of a server error (`23505` for a unique violation), if it is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    static func isRetryable(_ error: PSQLError) -> Bool {
        // serialization_failure, deadlock_detected
        ["40001", "40P01"].contains(error.serverInfo?[.sqlState] ?? "")
    }

    /// ``mapped(_:)``, with the server's address in a `StoreError.unavailable`.
    func mapped(_ error: any Error) -> any Error {
        let mapped = Self.mapped(error)
        guard case .unavailable? = mapped as? StoreError, !(error is StoreError) else { return mapped }
        return unreachable(Self.reason(error))
    }

    /// A `StoreError` for the server errors a caller can act on (`StoreError.unavailable` when
    /// the server cannot be reached, which the daemon's loops wait out); the error itself
    /// otherwise.
    static func mapped(_ error: any Error) -> any Error {
        if error is StoreError || error is PostgresCatalogError { return error }
        if error is ClosedConnectionError { return StoreError.unavailable("the catalog database is unreachable: \(error)") }
        guard let error = error as? PSQLError else { return error }
        if let info = error.serverInfo {
            let message = info[.message] ?? "the server refused the statement"
            switch info[.sqlState] ?? "" {
            case "23505": return StoreError.conflict(info[.detail] ?? message)
            // 22021: text PostgreSQL cannot store (a NUL character), which SQLite would have kept.
            case "23514", "22P02", "22023", "22021": return StoreError.invalid(message)
            // The server shuts down, restarts, starts up, or has no connection slot left.
            case "57P01", "57P02", "57P03", "53300": return StoreError.unavailable("the catalog database is unreachable: \(message)")
            default: return error
            }
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
            return StoreError.unavailable("the catalog database is unreachable: \(reason(error))")
        default:
            return error
        }
    }
}

/// A pooled connection the server had closed before a statement could be sent on it.
struct ClosedConnectionError: Error, CustomStringConvertible {
    var description: String { "the server closed the connection" }
}

/// One connection inside an open transaction, lent to a store method's body.
struct PostgresTransaction {
    let connection: PostgresConnection
    let logger: Logger

    /// The rows of one statement, read to the end.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await Self.rows(query, on: connection, logger: logger)
    }

    /// Runs one statement, ignoring any rows.
    func execute(_ query: PostgresQuery) async throws {
        _ = try await rows(query)
    }

    /// The rows of `query` on `connection`, which must still be open: PostgresNIO never answers
    /// a statement sent on a connection the server has just closed (the write is dropped with
    /// the channel, and the statement waits for ever), which the pool can lend in the moment
    /// before it notices.
    static func rows(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> [PostgresRow] {
        guard !connection.isClosed else { throw ClosedConnectionError() }
        return try await connection.query(query, logger: logger).collect()
    }

    /// The first row of a statement, if any.
    func row(_ query: PostgresQuery) async throws -> PostgresRow? {
        try await rows(query).first
    }
}

extension PostgresCatalog {
    /// The first row of a statement, if any.
    func row(_ query: PostgresQuery) async throws -> PostgresRow? {
        try await rows(query).first
    }

    /// Milliseconds since 1970 for a date, the schema's representation of instants.
    static func milliseconds(_ date: Date) -> Int64 { CatalogTime.milliseconds(date) }

    /// The date for a schema instant.
    static func date(milliseconds: Int64) -> Date { CatalogTime.date(milliseconds: milliseconds) }
}
