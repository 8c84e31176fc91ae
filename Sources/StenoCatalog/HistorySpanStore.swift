import Foundation
import StenoCore

/// The spans of each calendar's history mirrored on demand (``HistorySpanPlanner``), kept in
/// the catalog so a restarted daemon, or another daemon on the same catalog, does not ask the
/// provider for them again.
///
/// Spans are kept per calendar, not per account: a calendar enabled or discovered after its
/// account fetched a span has not got that span's history, and is asked for it alone. Disabling
/// a calendar forgets its spans along with its events.
///
/// A span is first claimed, then fetched, then recorded as fetched (or its claim dropped when
/// the fetch failed). Claims are made under one lock per account and expire, so two daemons
/// never fetch the same span at once, and a daemon that died while fetching leaves its spans to
/// the next one after the claim's duration.
public protocol HistorySpanStore: Sendable {
    /// Claims for `claimant`, for each enabled calendar of the account, the spans `plan` picks
    /// given the calendar's fetched spans and every unexpired claim on it, all in one
    /// transaction holding the account's lock.
    ///
    /// - Parameters:
    ///   - plan: the spans to fetch given the spans known (fetched or being fetched).
    ///   - duration: how long the claim holds before another daemon may take the spans.
    /// - Returns: per enabled calendar (none when the account is gone) the spans claimed and the
    ///   spans `plan` would pick that others are fetching now: wait for them before relying on
    ///   the mirror.
    func claimHistorySpans(
        accountID: Int64, claimant: String, duration: Duration, now: Date, plan: @Sendable (TimeSpanSet) -> [DateInterval]
    ) async throws -> HistorySpanClaim

    /// The spans fetched of each enabled calendar of the account (an empty set for a calendar
    /// with none): a read, so that recordings inside them need no claim.
    func fetchedHistorySpans(accountID: Int64) async throws -> [Int64: TimeSpanSet]

    /// Ends a claim: the spans of the calendars in `fetchedCalendarIDs` that are still enabled are
    /// recorded as fetched at `now`; the others are given back (asked for by the next claim).
    func finishHistorySpans(_ claim: HistorySpanClaim, fetchedCalendarIDs: Set<Int64>, now: Date) async throws
}

extension HistorySpanStore {
    /// Ends a claim: every calendar's spans are recorded as fetched when `fetched`, and given
    /// back otherwise.
    public func finishHistorySpans(_ claim: HistorySpanClaim, fetched: Bool, now: Date) async throws {
        try await finishHistorySpans(claim, fetchedCalendarIDs: fetched ? Set(claim.calendars.map(\.calendarID)) : [], now: now)
    }
}

/// The outcome of ``HistorySpanStore/claimHistorySpans(accountID:claimant:duration:now:plan:)``.
public struct HistorySpanClaim: Sendable, Hashable {
    /// The account the spans belong to.
    public var accountID: Int64
    /// The account's enabled calendars, each with its spans.
    public var calendars: [HistoryCalendarClaim]

    public init(accountID: Int64, calendars: [HistoryCalendarClaim] = []) {
        self.accountID = accountID
        self.calendars = calendars
    }

    /// The catalog rows of the spans claimed, every calendar's.
    public var ids: [Int64] { calendars.flatMap(\.ids) }
    /// The spans claimed for any calendar, each once, in time order.
    public var spans: [DateInterval] { Set(calendars.flatMap(\.spans)).sorted { ($0.start, $0.end) < ($1.start, $1.end) } }
    /// Spans wanted for any calendar that another claim is fetching now.
    public var pending: [DateInterval] { TimeSpanSet(calendars.flatMap(\.pending)).spans }
    /// The spans fetched before this claim for every calendar.
    public var fetched: TimeSpanSet {
        guard let first = calendars.first?.fetched else { return TimeSpanSet() }
        // A ∩ B = A − (A − B).
        return calendars.dropFirst().reduce(first) { $0.subtracting($0.subtracting($1.fetched)) }
    }

    /// The claim `plan` makes given each calendar's `fetched` spans and others' live `claimed`
    /// ones (both backends decide the same way): per calendar what it picks beside both, and
    /// what it would pick beside the fetched spans only that the live claims cover.
    package static func planned(
        accountID: Int64, calendars: [(id: Int64, remoteID: String, fetched: TimeSpanSet, claimed: TimeSpanSet)],
        plan: (TimeSpanSet) -> [DateInterval]
    ) -> HistorySpanClaim {
        HistorySpanClaim(
            accountID: accountID,
            calendars: calendars.map { calendar in
                let spans = plan(calendar.fetched.union(calendar.claimed))
                let wanted = TimeSpanSet(plan(calendar.fetched))
                let pending = wanted.subtracting(wanted.subtracting(calendar.claimed)).spans
                return HistoryCalendarClaim(
                    calendarID: calendar.id, remoteID: calendar.remoteID, spans: spans, pending: pending, fetched: calendar.fetched)
            })
    }
}

/// One calendar's part of a ``HistorySpanClaim``.
public struct HistoryCalendarClaim: Sendable, Hashable {
    /// The calendar's catalog id.
    public var calendarID: Int64
    /// The calendar's id at its source (Graph id, CalDAV href, ICS source), as history sources
    /// are asked by it.
    public var remoteID: String
    /// The catalog rows of the spans claimed.
    public var ids: [Int64]
    /// The spans claimed, to fetch now.
    public var spans: [DateInterval]
    /// Spans wanted that another claim is fetching now.
    public var pending: [DateInterval]
    /// Every span of the calendar fetched before this claim.
    public var fetched: TimeSpanSet

    public init(
        calendarID: Int64, remoteID: String, ids: [Int64] = [], spans: [DateInterval] = [], pending: [DateInterval] = [],
        fetched: TimeSpanSet = TimeSpanSet()
    ) {
        self.calendarID = calendarID
        self.remoteID = remoteID
        self.ids = ids
        self.spans = spans
        self.pending = pending
        self.fetched = fetched
    }
}

/// The fetched spans of an account's enabled calendars as both catalogs read them: one row per
/// calendar and fetched span, or a calendar alone (no span yet) with NULL times.
package struct FetchedHistorySpans {
    package private(set) var byCalendar: [Int64: TimeSpanSet] = [:]

    package init() {}

    /// Adds a row: the calendar, and the span in catalog milliseconds unless it has none.
    package mutating func add(calendarID: Int64, startMilliseconds: Int64?, endMilliseconds: Int64?) {
        guard let start = startMilliseconds, let end = endMilliseconds else {
            byCalendar[calendarID] = byCalendar[calendarID] ?? TimeSpanSet()
            return
        }
        byCalendar[calendarID, default: TimeSpanSet()].formUnion(
            DateInterval(start: CatalogTime.date(milliseconds: start), end: CatalogTime.date(milliseconds: max(start, end))))
    }
}
