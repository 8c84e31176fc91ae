import Foundation
import PostgresNIO

/// A statement of the job queue's hot path (claim, completion) that the server plans once per
/// connection instead of at every call: planning the claim costs the server about as much as
/// running it, and every job pays for one claim and one completion.
///
/// The text is the statement's ``PostgresQuery`` built with placeholder values (its `$n`
/// placeholders do not depend on the values); each call binds its own values in the same order.
struct PreparedJobStatement<Text: PreparedJobStatementText>: PostgresPreparedStatement {
    static var name: String { Text.name }
    static var sql: String { Text.sql }

    /// The call's values, from the same statement built with them.
    let bindings: PostgresBindings

    /// The statement with the values of `query`, which must be `Text`'s statement.
    init(_ query: PostgresQuery) {
        assert(query.sql == Text.sql, "a prepared statement bound the values of another statement")
        bindings = query.binds
    }

    func makeBindings() throws -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// The name and text of a ``PreparedJobStatement``.
protocol PreparedJobStatementText: Sendable {
    static var name: String { get }
    static var sql: String { get }
}

/// ``PostgresCatalog/claimStatement(workerID:kinds:limits:nowMilliseconds:expires:)``.
enum ClaimStatementText: PreparedJobStatementText {
    static let name = "steno_claim"
    static let sql = PostgresCatalog.claimStatement(workerID: "", kinds: nil, limits: [:], nowMilliseconds: 0, expires: 0).sql
}

/// ``PostgresCatalog/completion(_:nowMilliseconds:)``.
enum CompletionStatementText: PreparedJobStatementText {
    static let name = "steno_complete"
    static let sql = PostgresCatalog.completion([], nowMilliseconds: 0).sql
}

extension PostgresCatalog {
    /// The rows of a prepared statement, read to the end, on any pooled connection.
    func rows<Text: PreparedJobStatementText>(prepared text: Text.Type, _ query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = self.logger
        do {
            // Through withLeasedConnection: bounded by connect_timeout while the server is down.
            return try await withLeasedConnection { connection in
                guard !connection.isClosed else { throw ClosedConnectionError() }
                var rows: [PostgresRow] = []
                for try await row in try await connection.execute(PreparedJobStatement<Text>(query), logger: logger) { rows.append(row) }
                return rows
            }
        } catch {
            throw mapped(error)
        }
    }
}
