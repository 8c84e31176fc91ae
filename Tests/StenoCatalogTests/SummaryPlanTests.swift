import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// The statements building a page of meeting summaries (and a meeting's attendees) read
/// through indexes and sort nothing: at `meetings --all` a page holds 1,000 meetings, and
/// sorting every event and attendee row of each page in SQL cost more than reading them
/// (``MeetingEventFold`` puts the few events of each meeting in order instead).
@Suite("Query plans of meeting summaries")
struct SummaryPlanTests {
    /// Every statement run while building summaries and attendees for meetings with events.
    static func summaryStatements(_ catalog: SQLiteCatalog) async throws -> [String] {
        let statements = StatementLog()
        try await catalog.writer.read { db in
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { statements.append(statement.sql) }
            }
            defer { db.trace(options: []) { _ in } }
            _ = try SQLiteCatalog.meetingSummaries(db, ids: [1, 2])
            _ = try? SQLiteCatalog.meetingSummaryAndAttendees(db, id: 1)
        }
        return statements.all
    }

    /// The parameters of `sql`: `?` each, or `?1` … `?n` (numbered ones may repeat).
    static func parameterCount(_ sql: String) -> Int {
        let numbered = sql.split(separator: "?").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        return numbered.max() ?? sql.filter { $0 == "?" }.count
    }

    @Test func summariesReadThroughIndexesAndSortNothing() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        let statements = try await Self.summaryStatements(catalog)
        // The links' cache of attendees is read only for meetings whose events are gone; it
        // keeps its order (by recording, then email) from SQL.
        let checked = statements.filter { !$0.contains("link_attendees") }
        #expect(checked.contains { $0.contains("events") })
        let findings = try await catalog.writer.read { db in
            try checked.map { sql -> [String] in
                let arguments = StatementArguments(Array(repeating: nil as Int64?, count: Self.parameterCount(sql)))
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                return try ListingPlanTests.fullScans(db, sql, arguments) + plan.filter { $0.contains("TEMP B-TREE") }
            }
        }
        for (sql, lines) in zip(checked, findings) { #expect(lines == [], "\(sql)") }
    }
}

/// The statements a trace saw, appended from the connection's thread.
private final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []

    func append(_ sql: String) { lock.withLock { statements.append(sql) } }
    var all: [String] { lock.withLock { statements } }
}
