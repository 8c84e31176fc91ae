import Foundation
import GRDB
import StenoCore

extension SQLiteCatalog {
    public func claimHistorySpans(
        accountID: Int64, claimant: String, duration: Duration, now: Date, plan: @Sendable (TimeSpanSet) -> [DateInterval]
    ) async throws -> HistorySpanClaim {
        let nowMilliseconds = Self.milliseconds(now)
        let expiry = nowMilliseconds + duration.catalogMilliseconds
        // One write transaction: SQLite's single writer is the account's lock.
        return try await writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM calendar_accounts WHERE id = ?", arguments: [accountID]) == true else {
                return HistorySpanClaim(accountID: accountID)
            }
            try db.execute(
                sql: "DELETE FROM calendar_history_spans WHERE account_id = ? AND fetched_at IS NULL AND claim_expires_at <= ?",
                arguments: [accountID, nowMilliseconds])
            var fetched = TimeSpanSet()
            var claimed = TimeSpanSet()
            let rows = try Row.fetchAll(
                db, sql: "SELECT starts_at, ends_at, fetched_at IS NOT NULL FROM calendar_history_spans WHERE account_id = ?",
                arguments: [accountID])
            for row in rows {
                let span = DateInterval(start: Self.date(milliseconds: row[0]), end: Self.date(milliseconds: max(row[0], row[1] as Int64)))
                if row[2] { fetched.formUnion(span) } else { claimed.formUnion(span) }
            }
            var claim = HistorySpanClaim.planned(accountID: accountID, fetched: fetched, claimed: claimed, plan: plan)
            for span in claim.spans {
                try db.execute(
                    sql: """
                        INSERT INTO calendar_history_spans (account_id, starts_at, ends_at, claimed_by, claim_expires_at)
                        VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [accountID, Self.milliseconds(span.start), Self.milliseconds(span.end), claimant, expiry])
                claim.ids.append(db.lastInsertedRowID)
            }
            return claim
        }
    }

    public func finishHistorySpans(_ claim: HistorySpanClaim, fetched: Bool, now: Date) async throws {
        guard !claim.ids.isEmpty else { return }
        try await writer.write { db in
            // The claim's rows are replaced rather than updated: a claim that ran out may have
            // been dropped by another daemon meanwhile, and the spans were fetched all the same.
            try db.execute(
                sql: "DELETE FROM calendar_history_spans WHERE id IN (SELECT value FROM json_each(?)) AND fetched_at IS NULL",
                arguments: [Self.jsonArray(claim.ids)])
            guard fetched else { return }
            for span in claim.spans {
                try db.execute(
                    sql: """
                        INSERT INTO calendar_history_spans (account_id, starts_at, ends_at, fetched_at)
                        SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM calendar_accounts WHERE id = ?1)
                        """,
                    arguments: [claim.accountID, Self.milliseconds(span.start), Self.milliseconds(span.end), Self.milliseconds(now)])
            }
        }
    }
}
