import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog {
    public func claimHistorySpans(
        accountID: Int64, claimant: String, duration: Duration, now: Date, plan: @Sendable (TimeSpanSet) -> [DateInterval]
    ) async throws -> HistorySpanClaim {
        let nowMilliseconds = Self.milliseconds(now)
        let expiry = nowMilliseconds + duration.catalogMilliseconds
        // One write transaction: SQLite's single writer is the account's lock.
        return try await writer.write { db in
            try db.execute(
                sql: "DELETE FROM calendar_history_spans WHERE account_id = ? AND fetched_at IS NULL AND claim_expires_at <= ?",
                arguments: [accountID, nowMilliseconds])
            var known: [Int64: (fetched: TimeSpanSet, claimed: TimeSpanSet)] = [:]
            let rows = try Row.fetchAll(
                db, sql: "SELECT calendar_id, starts_at, ends_at, fetched_at IS NOT NULL FROM calendar_history_spans WHERE account_id = ?",
                arguments: [accountID])
            for row in rows {
                let span = DateInterval(start: Self.date(milliseconds: row[1]), end: Self.date(milliseconds: max(row[1], row[2] as Int64)))
                if row[3] { known[row[0], default: (TimeSpanSet(), TimeSpanSet())].fetched.formUnion(span) }
                else { known[row[0], default: (TimeSpanSet(), TimeSpanSet())].claimed.formUnion(span) }
            }
            let calendars = try Row.fetchAll(
                db, sql: "SELECT id, remote_id FROM calendars WHERE account_id = ? AND is_enabled ORDER BY id", arguments: [accountID]
            ).map { row -> (id: Int64, remoteID: String, fetched: TimeSpanSet, claimed: TimeSpanSet) in
                let spans = known[row[0]] ?? (TimeSpanSet(), TimeSpanSet())
                return (row[0], row[1], spans.fetched, spans.claimed)
            }
            var claim = HistorySpanClaim.planned(accountID: accountID, calendars: calendars, plan: plan)
            for index in claim.calendars.indices {
                for span in claim.calendars[index].spans {
                    try db.execute(
                        sql: """
                            INSERT INTO calendar_history_spans (account_id, calendar_id, starts_at, ends_at, claimed_by, claim_expires_at)
                            VALUES (?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            accountID, claim.calendars[index].calendarID, Self.milliseconds(span.start), Self.milliseconds(span.end), claimant, expiry,
                        ])
                    claim.calendars[index].ids.append(db.lastInsertedRowID)
                }
            }
            return claim
        }
    }

    public func fetchedHistorySpans(accountID: Int64) async throws -> [Int64: TimeSpanSet] {
        try await writer.read { db in
            var fetched = FetchedHistorySpans()
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT c.id, s.starts_at, s.ends_at FROM calendars c
                    LEFT JOIN calendar_history_spans s ON s.calendar_id = c.id AND s.fetched_at IS NOT NULL
                    WHERE c.account_id = ? AND c.is_enabled
                    """,
                arguments: [accountID])
            while let row = try rows.next() {
                fetched.add(calendarID: row[0], startMilliseconds: row[1], endMilliseconds: row[2])
            }
            return fetched.byCalendar
        }
    }

    public func finishHistorySpans(_ claim: HistorySpanClaim, fetchedCalendarIDs: Set<Int64>, now: Date) async throws {
        guard !claim.ids.isEmpty else { return }
        try await writer.write { db in
            // The claim's rows are replaced rather than updated: a claim that ran out may have
            // been dropped by another daemon meanwhile, and the spans were fetched all the same.
            try db.execute(
                sql: "DELETE FROM calendar_history_spans WHERE id IN (SELECT value FROM json_each(?)) AND fetched_at IS NULL",
                arguments: [Self.jsonArray(claim.ids)])
            for calendar in claim.calendars where fetchedCalendarIDs.contains(calendar.calendarID) {
                for span in calendar.spans {
                    // A calendar disabled meanwhile kept none of the events fetched.
                    try db.execute(
                        sql: """
                            INSERT INTO calendar_history_spans (account_id, calendar_id, starts_at, ends_at, fetched_at)
                            SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM calendars WHERE id = ?2 AND is_enabled)
                            """,
                        arguments: [
                            claim.accountID, calendar.calendarID, Self.milliseconds(span.start), Self.milliseconds(span.end), Self.milliseconds(now),
                        ])
                }
            }
        }
    }
}
