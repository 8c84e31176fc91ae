import Foundation
import StenoCatalog
import StenoCore
import Testing

/// The spans of history fetched per calendar, on both backends: claimed once however many
/// claimants ask at once, recorded when fetched, given back when the fetch failed, free again
/// when a claimant died, asked for again by a calendar enabled or found later, and remembered
/// by a catalog reopened (a restarted daemon).
@Suite("History spans")
struct HistorySpanStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let day: TimeInterval = 86_400

    func span(_ fromDay: Double, _ toDay: Double) -> DateInterval {
        DateInterval(start: now.addingTimeInterval(fromDay * day), end: now.addingTimeInterval(toDay * day))
    }

    /// The plan of a fetcher wanting `wanted`: what is not known yet.
    func plan(_ wanted: [DateInterval]) -> @Sendable (TimeSpanSet) -> [DateInterval] {
        { known in TimeSpanSet(wanted).subtracting(known).spans }
    }

    func setUp(_ backend: StoreBackend) async throws -> (OpenedCatalog, CalendarAccount) {
        let opened = try await backend.open()
        let alice = try await opened.store.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await opened.store.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: "https://example.com/a.ics"), now: now)
        _ = try await addCalendar("https://example.com/a.ics", to: account, in: opened.store)
        return (opened, account)
    }

    /// A calendar of the account, as its first sync finds it.
    func addCalendar(_ remoteID: String, to account: CalendarAccount, in store: any CatalogStore) async throws -> CalendarInfo? {
        _ = try await store.applyCalendarChanges(
            CalendarChangeSet(calendar: CalendarDescriptor(remoteID: remoteID, name: remoteID), scope: .incremental), accountID: account.id, now: now)
        return try await store.calendars(accountID: account.id, ownerID: nil).first { $0.remoteID == remoteID }
    }

    @Test(arguments: StoreBackend.available)
    func aSpanIsClaimedOnceAndRememberedWhenFetched(backend: StoreBackend) async throws {
        let (opened, account) = try await setUp(backend)
        let store = opened.store
        let wanted = [span(-400, -398), span(-300, -290)]
        let first = try await store.claimHistorySpans(accountID: account.id, claimant: "a/1", duration: .seconds(600), now: now, plan: plan(wanted))
        #expect(first.spans == wanted && first.pending.isEmpty && first.ids.count == 2)
        // Another daemon wanting an overlapping span claims only the part nobody holds, and
        // learns which part to wait for.
        let second = try await store.claimHistorySpans(
            accountID: account.id, claimant: "b/2", duration: .seconds(600), now: now.addingTimeInterval(1), plan: plan([span(-402, -399)]))
        #expect(second.spans == [span(-402, -400)] && second.pending == [span(-400, -399)])
        try await store.finishHistorySpans(first, fetched: true, now: now.addingTimeInterval(2))
        try await store.finishHistorySpans(second, fetched: true, now: now.addingTimeInterval(2))
        let third = try await store.claimHistorySpans(
            accountID: account.id, claimant: "c/3", duration: .seconds(600), now: now.addingTimeInterval(3), plan: plan(wanted + [span(-402, -399)]))
        #expect(third.spans.isEmpty && third.pending.isEmpty && third.fetched == TimeSpanSet(wanted + [span(-402, -399)]))
        // Another account knows nothing of these.
        let bob = try await store.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let other = try await store.addAccount(CalendarAccountDraft(provider: .ics, ownerID: bob.id, displayName: "/srv/b.ics"), now: now)
        _ = try await addCalendar("/srv/b.ics", to: other, in: store)
        let others = try await store.claimHistorySpans(accountID: other.id, claimant: "a/1", duration: .seconds(600), now: now, plan: plan(wanted))
        #expect(others.spans == wanted)
    }

    @Test(arguments: StoreBackend.available)
    func aFailedFetchOrADeadClaimantLeavesTheSpanToTheNextClaim(backend: StoreBackend) async throws {
        let (opened, account) = try await setUp(backend)
        let store = opened.store
        let wanted = [span(-500, -498)]
        let failed = try await store.claimHistorySpans(accountID: account.id, claimant: "a/1", duration: .seconds(600), now: now, plan: plan(wanted))
        try await store.finishHistorySpans(failed, fetched: false, now: now)
        let died = try await store.claimHistorySpans(accountID: account.id, claimant: "b/2", duration: .seconds(60), now: now, plan: plan(wanted))
        #expect(died.spans == wanted)
        // b/2 dies while fetching: until its claim runs out others wait, then one takes over.
        let waiting = try await store.claimHistorySpans(
            accountID: account.id, claimant: "c/3", duration: .seconds(60), now: now.addingTimeInterval(59), plan: plan(wanted))
        #expect(waiting.spans.isEmpty && waiting.pending == wanted)
        let takeover = try await store.claimHistorySpans(
            accountID: account.id, claimant: "c/3", duration: .seconds(60), now: now.addingTimeInterval(61), plan: plan(wanted))
        #expect(takeover.spans == wanted && takeover.pending.isEmpty)
        // The late claimant finishing after all records the span too; nothing is fetched again.
        try await store.finishHistorySpans(died, fetched: true, now: now.addingTimeInterval(62))
        try await store.finishHistorySpans(takeover, fetched: true, now: now.addingTimeInterval(63))
        let after = try await store.claimHistorySpans(
            accountID: account.id, claimant: "d/4", duration: .seconds(60), now: now.addingTimeInterval(64), plan: plan(wanted))
        #expect(after.spans.isEmpty && after.pending.isEmpty && after.fetched == TimeSpanSet(wanted))
    }

    /// Many claimants at once (PostgreSQL: on separate connections): exactly one claims.
    @Test(arguments: StoreBackend.available)
    func concurrentClaimantsClaimASpanOnce(backend: StoreBackend) async throws {
        let (opened, account) = try await setUp(backend)
        let store = opened.store
        let wanted = [span(-700, -600), span(-365, -364)]
        let claims = try await withThrowingTaskGroup(of: HistorySpanClaim.self) { group in
            for index in 0..<12 {
                group.addTask {
                    try await store.claimHistorySpans(
                        accountID: account.id, claimant: "d/\(index)", duration: .seconds(600), now: now, plan: plan(wanted))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(claims.filter { !$0.spans.isEmpty }.map(\.spans) == [wanted])
        #expect(claims.filter { $0.spans.isEmpty }.allSatisfy { $0.pending == wanted })
    }

    @Test(arguments: StoreBackend.available)
    func accountGoneClaimsNothingAndTakesItsSpansAlong(backend: StoreBackend) async throws {
        let (opened, account) = try await setUp(backend)
        let store = opened.store
        let claim = try await store.claimHistorySpans(
            accountID: account.id, claimant: "a/1", duration: .seconds(600), now: now, plan: plan([span(-400, -399)]))
        _ = try await store.removeAccount(id: account.id)
        try await store.finishHistorySpans(claim, fetched: true, now: now)
        #expect(try await opened.column("SELECT CAST(count(*) AS TEXT) FROM calendar_history_spans") == ["0"])
        let none = try await store.claimHistorySpans(
            accountID: account.id, claimant: "a/1", duration: .seconds(600), now: now, plan: plan([span(-400, -399)]))
        #expect(none.spans.isEmpty && none.ids.isEmpty)
    }

    /// Spans are kept per calendar: one disabled while a span is fetched, enabled again, or
    /// found by a later sync is asked for that span alone; disabling forgets a calendar's spans.
    @Test(arguments: StoreBackend.available)
    func aCalendarEnabledOrFoundLaterIsAskedForItsOwnSpans(backend: StoreBackend) async throws {
        let (opened, account) = try await setUp(backend)
        let store = opened.store
        let calendars = try await store.calendars(accountID: account.id, ownerID: nil)
        let work = try #require(calendars.first)
        let team = try #require(try await addCalendar("team", to: account, in: store))
        _ = try await store.setCalendarEnabled(id: team.id, enabled: false, now: now)
        let wanted = [span(-400, -398)]
        func claim(_ claimant: String) async throws -> HistorySpanClaim {
            try await store.claimHistorySpans(accountID: account.id, claimant: claimant, duration: .seconds(600), now: now, plan: plan(wanted))
        }
        func claimed(_ claim: HistorySpanClaim) -> [String: [DateInterval]] {
            Dictionary(claim.calendars.filter { !$0.spans.isEmpty }.map { ($0.remoteID, $0.spans) }) { first, _ in first }
        }
        let first = try await claim("a/1")
        #expect(claimed(first) == [work.remoteID: wanted])
        try await store.finishHistorySpans(first, fetched: true, now: now)
        #expect(try await store.fetchedHistorySpans(accountID: account.id) == [work.id: TimeSpanSet(wanted)])

        // Enabled again: that calendar lacks the span, the other has it.
        _ = try await store.setCalendarEnabled(id: team.id, enabled: true, now: now)
        #expect(try await store.fetchedHistorySpans(accountID: account.id) == [work.id: TimeSpanSet(wanted), team.id: TimeSpanSet()])
        let second = try await claim("a/1")
        #expect(claimed(second) == ["team": wanted])
        #expect(second.ids.count == 1 && second.fetched.isEmpty)
        try await store.finishHistorySpans(second, fetched: true, now: now)

        // A calendar a later sync found is asked alone too.
        let board = try #require(try await addCalendar("board", to: account, in: store))
        let third = try await claim("a/1")
        #expect(claimed(third) == ["board": wanted])
        // One disabled while its fetch runs records nothing: its events were dropped.
        _ = try await store.setCalendarEnabled(id: board.id, enabled: false, now: now)
        try await store.finishHistorySpans(third, fetched: true, now: now)
        #expect(try await store.fetchedHistorySpans(accountID: account.id) == [work.id: TimeSpanSet(wanted), team.id: TimeSpanSet(wanted)])

        // Disabling forgets the calendar's spans with its events: enabled again, it is asked again.
        _ = try await store.setCalendarEnabled(id: team.id, enabled: false, now: now)
        _ = try await store.setCalendarEnabled(id: team.id, enabled: true, now: now)
        let fourth = try await claim("a/1")
        #expect(claimed(fourth) == ["team": wanted])
        // Only the calendars the source asked are recorded; the others are given back.
        try await store.finishHistorySpans(fourth, fetchedCalendarIDs: [], now: now)
        #expect(claimed(try await claim("b/2")) == ["team": wanted])
    }

    /// The spans fetched before spans were kept per calendar cover the calendars enabled at the
    /// upgrade (a disabled calendar's history was not fetched); claims in progress are dropped.
    @Test func migration0021KeepsFetchedSpansForTheCalendarsEnabled() async throws {
        let temporary = try await TemporaryCatalog.migrated(
            upTo: "0020_job_progress",
            rows: """
                INSERT INTO users (id, name, created_at, updated_at) VALUES (1, 'alice', 0, 0);
                INSERT INTO calendar_accounts (id, provider, owner_id, display_name, created_at, updated_at) VALUES (1, 'caldav', 1, 'dav', 0, 0);
                INSERT INTO calendars (id, account_id, remote_id, name, is_enabled, created_at, updated_at)
                    VALUES (1, 1, '/work/', 'Work', 1, 0, 0), (2, 1, '/team/', 'Team', 0, 0, 0), (3, 1, '/board/', 'Board', 1, 0, 0);
                INSERT INTO calendar_history_spans (account_id, starts_at, ends_at, fetched_at) VALUES (1, 1000000, 2000000, 5);
                INSERT INTO calendar_history_spans (account_id, starts_at, ends_at, claimed_by, claim_expires_at)
                    VALUES (1, 2000000, 3000000, 'a/1', 9000000000000);
                """)
        let catalog = try await temporary.open()
        let fetched = TimeSpanSet([DateInterval(start: Date(timeIntervalSince1970: 1000), end: Date(timeIntervalSince1970: 2000))])
        #expect(try await catalog.fetchedHistorySpans(accountID: 1) == [1: fetched, 3: fetched])
        let claim = try await catalog.claimHistorySpans(accountID: 1, claimant: "b/2", duration: .seconds(60), now: now) { known in
            TimeSpanSet([DateInterval(start: Date(timeIntervalSince1970: 1000), end: Date(timeIntervalSince1970: 3000))]).subtracting(known).spans
        }
        let later = DateInterval(start: Date(timeIntervalSince1970: 2000), end: Date(timeIntervalSince1970: 3000))
        #expect(claim.calendars.map(\.calendarID) == [1, 3] && claim.calendars.allSatisfy { $0.spans == [later] && $0.pending.isEmpty })
    }

    /// A history fetch's change set marks the events of its span.
    @Test(arguments: StoreBackend.available)
    func historyChangeSetsMarkTheirEvents(backend: StoreBackend) async throws {
        let (opened, account) = try await setUp(backend)
        let calendar = CalendarDescriptor(remoteID: "https://example.com/a.ics", name: "A")
        func event(_ uid: String, atDay offset: Double) -> ResourceUpdate {
            let start = now.addingTimeInterval(offset * day)
            return ResourceUpdate(
                resource: uid,
                occurrences: [
                    EventOccurrence(
                        remoteID: uid, iCalUID: uid, seriesUID: uid, recurrenceID: nil, meetingIdentity: MeetingIdentity.iCalendar(uid: uid, recurrenceID: nil),
                        title: uid, start: start, end: start.addingTimeInterval(1800))
                ])
        }
        _ = try await opened.store.applyCalendarChanges(
            CalendarChangeSet(calendar: calendar, scope: .incremental, updatedResources: [event("recent", atDay: -3)]), accountID: account.id, now: now)
        _ = try await opened.store.applyCalendarChanges(
            CalendarChangeSet(
                calendar: calendar, scope: .incremental, updatedResources: [event("old", atDay: -400)], window: span(-401, -399),
                fromHistory: true),
            accountID: account.id, now: now)
        let marked = try await opened.rows("SELECT remote_id, CAST(from_history AS TEXT) FROM events ORDER BY remote_id")
        #expect(marked.map { $0[0] } == ["old", "recent"])
        #expect(marked.map { $0[1] == "1" || $0[1] == "true" } == [true, false])
    }
}
