import Foundation
import StenoCore
import StenoStore
import Testing

/// The spans of history fetched per account, on both backends: claimed once however many
/// claimants ask at once, recorded when fetched, given back when the fetch failed, free again
/// when a claimant died, and remembered by a catalog reopened (a restarted daemon).
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
        return (opened, account)
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
