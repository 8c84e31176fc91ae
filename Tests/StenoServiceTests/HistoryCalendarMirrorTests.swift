import Foundation
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// What a history fetch writes through ``HistoryCalendarMirror``: its events, marked, and
/// nothing a sync relies on (ETags, sync states, the list of calendars).
@Suite("History's view of the mirror")
struct HistoryCalendarMirrorTests {
    @Test("a history fetch keeps the sync's ETag, sync state and calendars, and leaves a complete listing incremental")
    func historyLeavesTheSyncsStateAlone() async throws {
        let root = NSTemporaryDirectory() + "steno-history-mirror-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .caldav, ownerID: alice.id, displayName: "dav"), now: now)
        let sync = CatalogCalendarMirror(store: catalog, accountID: account.id, secrets: nil)
        let calendar = CalendarDescriptor(remoteID: "/alice/work/", name: "Work")
        func series(_ etag: String, at start: Date) -> ResourceUpdate {
            ResourceUpdate(
                resource: "/alice/work/weekly.ics", etag: etag,
                occurrences: [
                    EventOccurrence(
                        remoteID: "/alice/work/weekly.ics#\(MeetingIdentity.basicUTC(start))", iCalUID: "weekly", seriesUID: "weekly",
                        recurrenceID: start, meetingIdentity: MeetingIdentity.iCalendar(uid: "weekly", recurrenceID: start), title: "Weekly",
                        start: start, end: start.addingTimeInterval(1800))
                ])
        }
        let recent = now.addingTimeInterval(-7 * 86_400)
        let window = ICalendar.mirroredWindow(around: now)
        _ = try await sync.apply(
            CalendarChangeSet(calendar: calendar, scope: .incremental, updatedResources: [series("\"v1\"", at: recent)], syncState: "token-1", window: window))
        _ = try await sync.apply(CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/alice/home/", name: "Home"), scope: .incremental))

        // The series changed since (ETag v2): history expands it in a span a year back only.
        let old = now.addingTimeInterval(-400 * 86_400)
        let history = HistoryCalendarMirror(inner: sync)
        _ = try await history.apply(
            CalendarChangeSet(
                calendar: calendar, scope: .complete, updatedResources: [series("\"v2\"", at: old)], syncState: "history-state",
                window: DateInterval(start: old.addingTimeInterval(-86_400), end: old.addingTimeInterval(86_400))))
        try await history.removeCalendars(except: [calendar.remoteID])

        // The next sync comparing ETags still sees v1, so it fetches the series and expands
        // the window again; the occurrence in the window was not judged by the span.
        #expect(try await sync.resourceTags(calendarRemoteID: calendar.remoteID) == ["/alice/work/weekly.ics": "\"v1\""])
        let calendars = try await sync.calendars()
        #expect(Set(calendars.map(\.remoteID)) == ["/alice/work/", "/alice/home/"])
        #expect(calendars.first { $0.remoteID == calendar.remoteID }?.syncState == "token-1")
        let live = try await catalog.linkCandidates(ownerID: alice.id, window: DateInterval(start: old.addingTimeInterval(-3600), end: now))
        #expect(Set(live.map(\.start)) == [old, recent])
    }
}
