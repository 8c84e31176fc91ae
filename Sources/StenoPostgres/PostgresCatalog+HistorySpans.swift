import Foundation
import StenoCore
import StenoStore

extension PostgresCatalog: HistorySpanStore {
    public func claimHistorySpans(
        accountID: Int64, claimant: String, duration: Duration, now: Date, plan: @Sendable (TimeSpanSet) -> [DateInterval]
    ) async throws -> HistorySpanClaim {
        let nowMilliseconds = Self.milliseconds(now)
        let expiry = nowMilliseconds + duration.catalogMilliseconds
        return try await transaction { tx in
            // The account's row lock serializes the daemons claiming its spans: each reads the
            // claims the previous one committed.
            guard try await tx.row("SELECT 1 FROM calendar_accounts WHERE id = \(accountID) FOR UPDATE") != nil else {
                return HistorySpanClaim(accountID: accountID)
            }
            try await tx.execute(
                "DELETE FROM calendar_history_spans WHERE account_id = \(accountID) AND fetched_at IS NULL AND claim_expires_at <= \(nowMilliseconds)")
            var fetched = TimeSpanSet()
            var claimed = TimeSpanSet()
            for row in try await tx.rows(
                "SELECT starts_at, ends_at, fetched_at IS NOT NULL FROM calendar_history_spans WHERE account_id = \(accountID)")
            {
                let (start, end, isFetched) = try row.decode((Int64, Int64, Bool).self)
                let span = DateInterval(start: Self.date(milliseconds: start), end: Self.date(milliseconds: max(start, end)))
                if isFetched { fetched.formUnion(span) } else { claimed.formUnion(span) }
            }
            var claim = HistorySpanClaim.planned(accountID: accountID, fetched: fetched, claimed: claimed, plan: plan)
            guard !claim.spans.isEmpty else { return claim }
            let starts = claim.spans.map { Self.milliseconds($0.start) }
            let ends = claim.spans.map { Self.milliseconds($0.end) }
            for row in try await tx.rows(
                """
                INSERT INTO calendar_history_spans (account_id, starts_at, ends_at, claimed_by, claim_expires_at)
                SELECT \(accountID), s, e, \(claimant), \(expiry) FROM unnest(\(starts)::bigint[], \(ends)::bigint[]) AS t(s, e)
                RETURNING id
                """)
            {
                claim.ids.append(try row.decode(Int64.self))
            }
            return claim
        }
    }

    public func finishHistorySpans(_ claim: HistorySpanClaim, fetched: Bool, now: Date) async throws {
        guard !claim.ids.isEmpty else { return }
        let starts = claim.spans.map { Self.milliseconds($0.start) }
        let ends = claim.spans.map { Self.milliseconds($0.end) }
        let nowMilliseconds = Self.milliseconds(now)
        try await transaction { tx in
            // The claim's rows are replaced rather than updated: a claim that ran out may have
            // been dropped by another daemon meanwhile, and the spans were fetched all the same.
            try await tx.execute("DELETE FROM calendar_history_spans WHERE id = ANY(\(claim.ids)) AND fetched_at IS NULL")
            guard fetched else { return }
            try await tx.execute(
                """
                INSERT INTO calendar_history_spans (account_id, starts_at, ends_at, fetched_at)
                SELECT \(claim.accountID), s, e, \(nowMilliseconds) FROM unnest(\(starts)::bigint[], \(ends)::bigint[]) AS t(s, e)
                WHERE EXISTS (SELECT 1 FROM calendar_accounts WHERE id = \(claim.accountID))
                """)
        }
    }
}
