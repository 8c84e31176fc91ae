import Foundation
import Logging
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// Every calendar of a mailbox — own and shared — mirrored with its own delta state; the
/// mailbox row of a catalog from before stays the default calendar; disabled ones are skipped.
@Suite("Graph provider: every calendar of a mailbox", .serialized)
struct GraphCalendarsTests {
    static let team = GraphDouble.Calendar(id: "cal-team", name: "Team")
    static let shared = GraphDouble.Calendar(id: "cal-bob", name: "Bob's calendar", owner: "bob@contoso.com", canEdit: false)

    func credentials(_ bed: GraphTestBed) -> CalendarCredentials {
        CalendarCredentials(refreshToken: bed.double.issueRefreshToken(for: GraphTestBed.user))
    }

    /// Two more calendars for alice, one of them Bob's shared with her, an event in each.
    func addCalendars(_ bed: GraphTestBed) {
        bed.double.addCalendar(Self.team)
        bed.double.addCalendar(Self.shared)
        bed.double.put(
            GraphDouble.Event(id: "team-1", subject: "Team sync", start: GraphTestBed.start(hours: 2), end: GraphTestBed.start(hours: 3)),
            calendar: Self.team.id)
        bed.double.put(
            GraphDouble.Event(
                id: "bob-1", subject: "Bob's review", start: GraphTestBed.start(hours: 4), end: GraphTestBed.start(hours: 5),
                organizer: .init(email: "bob@contoso.com")),
            calendar: Self.shared.id)
    }

    @Test("own and shared calendars are mirrored, each with its own delta link; a change in one is one more round of that calendar")
    func everyCalendarIsMirrored() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(3)
        addCalendars(bed)
        let account = bed.delegatedAccount()
        let report = try await bed.sync(account, credentials: credentials(bed))
        #expect(report.calendars == 3 && report.fullSyncs == 3 && report.changes.inserted == 5)
        let calendars = try await bed.mirror.calendars()
        #expect(Set(calendars.map(\.remoteID)) == ["me", "me/calendars/cal-team", "me/calendars/cal-bob"])
        #expect(calendars.first { $0.remoteID == "me/calendars/cal-bob" }?.name.contains("shared by bob@contoso.com") == true)
        for calendar in ["me", "me/calendars/cal-team", "me/calendars/cal-bob"] {
            #expect(await bed.state(calendar: calendar)?.deltaLink?.contains("/\(calendar)/calendarView/delta?$deltatoken=") == true, "\(calendar)")
        }
        #expect(await bed.mirror.liveEvents(calendar: "me/calendars/cal-bob").map(\.title) == ["Bob's review"])
        #expect(await bed.mirror.liveEvents(calendar: "me/calendars/cal-team").map(\.title) == ["Team sync"])
        await bed.expectMirrorEqualsDouble()

        bed.double.update("bob-1", calendar: Self.shared.id) { $0.subject = "Bob's review, moved" }
        let again = try await bed.sync(account, credentials: credentials(bed))
        #expect(again.fullSyncs == 0 && again.changes.updated == 1 && again.changes.inserted == 0)
        #expect(await bed.mirror.liveEvents(calendar: "me/calendars/cal-bob").map(\.title) == ["Bob's review, moved"])
    }

    @Test("a catalog's mailbox row is the default calendar: kept with its delta link, only the new calendars are read in full")
    func theMailboxRowIsTheDefaultCalendar() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(4)
        let account = bed.delegatedAccount()
        // Before: one calendar per mailbox, mirrored as `me`.
        _ = try await bed.sync(account, credentials: credentials(bed))
        let before = try #require(await bed.state(calendar: "me")?.deltaLink)
        addCalendars(bed)
        bed.double.resetCounters()
        let report = try await bed.sync(account, credentials: credentials(bed))
        #expect(report.fullSyncs == 2 && report.changes.inserted == 2 && report.changes.deleted == 0)
        #expect(bed.graphRequests.contains { $0.uri.hasPrefix("/v1.0/me/calendarView/delta?$deltatoken=") })
        #expect(await bed.state(calendar: "me")?.deltaLink != nil && before.contains("$deltatoken="))
        #expect(await bed.mirror.liveEvents(calendar: "me").count == 4)
    }

    @Test("a disabled calendar is not read and stays in the mirror; enabled again, it is read from the start")
    func aDisabledCalendarIsSkipped() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        addCalendars(bed)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        await bed.mirror.setEnabled(calendar: "me/calendars/cal-team", false)
        bed.double.resetCounters()
        let report = try await bed.sync(account, credentials: credentials(bed))
        #expect(report.calendars == 2)
        #expect(!bed.graphRequests.contains { $0.uri.contains("cal-team") })
        #expect(try await bed.mirror.calendars().contains { $0.remoteID == "me/calendars/cal-team" && !$0.isEnabled })

        await bed.mirror.setEnabled(calendar: "me/calendars/cal-team", true)
        let enabled = try await bed.sync(account, credentials: credentials(bed))
        #expect(enabled.calendars == 3 && enabled.fullSyncs == 1)
        #expect(bed.graphRequests.contains { $0.uri.hasPrefix("/v1.0/me/calendars/cal-team/calendarView/delta?startDateTime=") })
    }

    @Test("a mailbox whose calendars cannot be listed still syncs its default calendar and keeps the others")
    func aRefusedListingKeepsTheCalendars() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(2)
        addCalendars(bed)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        bed.double.inject([GraphDouble.Fault(status: 403, code: "ErrorAccessDenied")])
        let report = try await bed.sync(account, credentials: credentials(bed))
        #expect(report.calendars == 1 && report.warnings.contains { $0.contains("could not be listed") })
        #expect(try await bed.mirror.calendars().count == 3)
        #expect(await bed.mirror.liveEvents(calendar: "me/calendars/cal-bob").count == 1)
    }

    @Test("history: calendarView of a span 13 months back, paged, per enabled calendar, a 429 waited out; a calendar enabled later asked alone")
    func historyOfASpan() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        addCalendars(bed)
        let old = GraphTestBed.start(hours: -395 * 24)
        for index in 0..<25 {
            let start = old.addingTimeInterval(Double(index) * 1800)
            bed.double.put(GraphDouble.Event(id: String(format: "old%02d", index), subject: "Old \(index)", start: start, end: start.addingTimeInterval(1500)))
        }
        bed.double.put(GraphDouble.Event(id: "team-old", subject: "Old team", start: old, end: old.addingTimeInterval(1800)), calendar: Self.team.id)
        bed.double.put(GraphDouble.Event(id: "bob-old", subject: "Old review", start: old, end: old.addingTimeInterval(1800)), calendar: Self.shared.id)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        #expect(await bed.mirror.liveEvents(calendar: "me").isEmpty, "outside the window")
        await bed.mirror.setEnabled(calendar: "me/calendars/cal-team", false)
        bed.double.resetCounters()
        bed.double.inject([GraphDouble.Fault(status: 429, retryAfter: "1")])
        let context = CalendarSyncContext(
            account: account, credentials: await bed.mirror.savedCredentials.last, window: GraphTestBed.window(), mirror: bed.mirror,
            logger: Logger(label: "graph-test"))
        let span = DateInterval(start: old.addingTimeInterval(-3600), duration: 86_400)
        let report = try await GraphProvider(transport: bed.transport, options: bed.options).fetchHistory([span], context: context)
        #expect(await bed.mirror.liveEvents(calendar: "me").count == 25)
        #expect(await bed.mirror.liveEvents(calendar: "me/calendars/cal-bob").map(\.title).contains("Old review"))
        #expect(await !bed.mirror.liveEvents(calendar: "me/calendars/cal-team").map(\.title).contains("Old team"), "a disabled calendar is not asked")
        let views = bed.graphRequests.filter { $0.uri.contains("/calendarView?") }
        #expect(views.count == 5, "the 429, three pages of the default calendar, one of the shared one: \(views.map(\.uri))")
        #expect(!views.contains { $0.uri.contains("cal-team") } && views.contains { $0.uri.contains("$skip=") })
        #expect(report.changes.inserted == 26 && report.requests >= 5)
        #expect(await bed.state(calendar: "me")?.deltaLink != nil, "a history fetch leaves the sync state alone")
        #expect(report.historyCalendars == ["me", "me/calendars/cal-bob"])

        // Enabled again later: asked alone for the span the others have.
        await bed.mirror.setEnabled(calendar: "me/calendars/cal-team", true)
        bed.double.resetCounters()
        let team = try await GraphProvider(transport: bed.transport, options: bed.options).fetchHistory(
            ["me/calendars/cal-team": [span]], context: context)
        #expect(await bed.mirror.liveEvents(calendar: "me/calendars/cal-team").map(\.title).contains("Old team"))
        let teamViews = bed.graphRequests.filter { $0.uri.contains("/calendarView?") }
        #expect(teamViews.count == 1 && teamViews.allSatisfy { $0.uri.contains("cal-team") }, "\(teamViews.map(\.uri))")
        #expect(team.historyCalendars == ["me/calendars/cal-team"])
    }
}
