import Foundation
import StenoCatalog
import StenoCore

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
            var known: [Int64: (fetched: TimeSpanSet, claimed: TimeSpanSet)] = [:]
            for row in try await tx.rows(
                "SELECT calendar_id, starts_at, ends_at, fetched_at IS NOT NULL FROM calendar_history_spans WHERE account_id = \(accountID)")
            {
                let (calendarID, start, end, isFetched) = try row.decode((Int64, Int64, Int64, Bool).self)
                let span = DateInterval(start: Self.date(milliseconds: start), end: Self.date(milliseconds: max(start, end)))
                if isFetched { known[calendarID, default: (TimeSpanSet(), TimeSpanSet())].fetched.formUnion(span) }
                else { known[calendarID, default: (TimeSpanSet(), TimeSpanSet())].claimed.formUnion(span) }
            }
            var calendars: [(id: Int64, remoteID: String, fetched: TimeSpanSet, claimed: TimeSpanSet)] = []
            for row in try await tx.rows("SELECT id, remote_id FROM calendars WHERE account_id = \(accountID) AND is_enabled ORDER BY id") {
                let (id, remoteID) = try row.decode((Int64, String).self)
                let spans = known[id] ?? (TimeSpanSet(), TimeSpanSet())
                calendars.append((id, remoteID, spans.fetched, spans.claimed))
            }
            var claim = HistorySpanClaim.planned(accountID: accountID, calendars: calendars, plan: plan)
            for index in claim.calendars.indices where !claim.calendars[index].spans.isEmpty {
                let spans = claim.calendars[index].spans
                let starts = spans.map { Self.milliseconds($0.start) }
                let ends = spans.map { Self.milliseconds($0.end) }
                for row in try await tx.rows(
                    """
                    INSERT INTO calendar_history_spans (account_id, calendar_id, starts_at, ends_at, claimed_by, claim_expires_at)
                    SELECT \(accountID), \(claim.calendars[index].calendarID), s, e, \(claimant), \(expiry)
                    FROM unnest(\(starts)::bigint[], \(ends)::bigint[]) WITH ORDINALITY AS t(s, e, n) ORDER BY n
                    RETURNING id
                    """)
                {
                    claim.calendars[index].ids.append(try row.decode(Int64.self))
                }
            }
            return claim
        }
    }

    public func fetchedHistorySpans(accountID: Int64) async throws -> [Int64: TimeSpanSet] {
        var fetched = FetchedHistorySpans()
        for row in try await rows(
            """
            SELECT c.id, s.starts_at, s.ends_at FROM calendars c
            LEFT JOIN calendar_history_spans s ON s.calendar_id = c.id AND s.fetched_at IS NOT NULL
            WHERE c.account_id = \(accountID) AND c.is_enabled
            """)
        {
            let (calendarID, start, end) = try row.decode((Int64, Int64?, Int64?).self)
            fetched.add(calendarID: calendarID, startMilliseconds: start, endMilliseconds: end)
        }
        return fetched.byCalendar
    }

    public func finishHistorySpans(_ claim: HistorySpanClaim, fetchedCalendarIDs: Set<Int64>, now: Date) async throws {
        guard !claim.ids.isEmpty else { return }
        var calendarIDs: [Int64] = []
        var starts: [Int64] = []
        var ends: [Int64] = []
        for calendar in claim.calendars where fetchedCalendarIDs.contains(calendar.calendarID) {
            for span in calendar.spans {
                calendarIDs.append(calendar.calendarID)
                starts.append(Self.milliseconds(span.start))
                ends.append(Self.milliseconds(span.end))
            }
        }
        let nowMilliseconds = Self.milliseconds(now)
        try await transaction { tx in
            // The account's lock orders this after a calendar being disabled (which forgets the
            // calendar's spans) or before it (its spans recorded here are forgotten then).
            _ = try await tx.row("SELECT 1 FROM calendar_accounts WHERE id = \(claim.accountID) FOR UPDATE")
            // The claim's rows are replaced rather than updated: a claim that ran out may have
            // been dropped by another daemon meanwhile, and the spans were fetched all the same.
            try await tx.execute("DELETE FROM calendar_history_spans WHERE id = ANY(\(claim.ids)) AND fetched_at IS NULL")
            guard !calendarIDs.isEmpty else { return }
            // A calendar disabled meanwhile kept none of the events fetched.
            try await tx.execute(
                """
                INSERT INTO calendar_history_spans (account_id, calendar_id, starts_at, ends_at, fetched_at)
                SELECT \(claim.accountID), c, s, e, \(nowMilliseconds) FROM unnest(\(calendarIDs)::bigint[], \(starts)::bigint[], \(ends)::bigint[]) AS t(c, s, e)
                WHERE EXISTS (SELECT 1 FROM calendars WHERE id = t.c AND is_enabled)
                """)
        }
    }
}
