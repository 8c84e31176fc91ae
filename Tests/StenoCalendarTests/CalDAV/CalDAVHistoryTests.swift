import Foundation
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// History on demand from a real Radicale: spans long before the mirrored window are asked for
/// by time range and mirrored, series expanded for the span only.
@Suite(
    "CalDAV history on demand against Radicale", .serialized,
    .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
struct CalDAVHistoryTests {
    @Test("meetings 13 months and 3 years back: one calendar-query per calendar and span, expanded by the server; moved and cancelled occurrences as at recent dates")
    func oldMeetings() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            let yearAgo = server.at(days: -395)
            let threeYears = server.at(days: -1095)
            try await server.writer.put(server.objectURL("work", "review.ics"), ics: server.event(uid: "review", summary: "Review", days: -395))
            try await server.writer.put(
                server.objectURL("work", "after.ics"), ics: TestEvents.single(
                    uid: "after", summary: "Right after", start: TestEvents.utc(server.at(days: -395, hours: 1)),
                    end: TestEvents.utc(server.at(days: -395, hours: 2))))
            try await server.writer.put(server.objectURL("work", "old.ics"), ics: server.event(uid: "old", summary: "Kick-off", days: -1095))
            // A daily series around the 13-month date: one occurrence moved, one cancelled.
            let seriesStart = yearAgo.addingTimeInterval(-3 * 86_400 + 7200)
            let moved = seriesStart.addingTimeInterval(2 * 86_400)
            let cancelled = seriesStart.addingTimeInterval(4 * 86_400)
            try await server.writer.put(server.objectURL("work", "standup.ics"), ics: TestEvents.calendar([
                "BEGIN:VEVENT", "UID:standup", "DTSTAMP:20260101T000000Z", "DTSTART:\(TestEvents.utc(seriesStart))",
                "DTEND:\(TestEvents.utc(seriesStart.addingTimeInterval(900)))", "RRULE:FREQ=DAILY;COUNT=20", "EXDATE:\(TestEvents.utc(cancelled))",
                "SUMMARY:Stand-up", "END:VEVENT",
                "BEGIN:VEVENT", "UID:standup", "DTSTAMP:20260101T000000Z", "RECURRENCE-ID:\(TestEvents.utc(moved))",
                "DTSTART:\(TestEvents.utc(moved.addingTimeInterval(3600)))", "DTEND:\(TestEvents.utc(moved.addingTimeInterval(4500)))",
                "SUMMARY:Stand-up (moved)", "END:VEVENT",
            ]))
            try await server.writer.put(server.objectURL("work", "now.ics"), ics: server.event(uid: "now", summary: "Now", days: 1))
            try await server.sync()
            let work = server.remoteID("work")
            #expect(Set(await server.mirror.liveEvents(calendar: work).map(\.meetingIdentity)) == ["now"])

            let spans = [
                DateInterval(start: yearAgo.addingTimeInterval(-5 * 86_400), end: yearAgo.addingTimeInterval(5 * 86_400)),
                DateInterval(start: threeYears.addingTimeInterval(-86_400), end: threeYears.addingTimeInterval(86_400)),
            ]
            let report = try await server.fetchHistory(spans)
            #expect(report.requests == 2)  // per span, one calendar-query answering with the data
            // Radicale expands on the server: probed by this first fetch and stored.
            let capabilities = CalDAVStateCoding.decode(CalDAVCapabilities.self, from: await server.mirror.account(server.account).capabilities)
            #expect(capabilities?.expand == true)
            let live = await server.mirror.liveEvents(calendar: work)
            #expect(Set(live.map(\.meetingIdentity)).isSuperset(of: ["review", "after", "old", "now"]))
            let standups = live.filter { $0.seriesUID == "standup" }
            // Expanded for the span only: 8 of the series' 20 days, less the cancelled one.
            #expect(standups.count == 7)
            #expect(!standups.contains { $0.recurrenceID == cancelled })
            #expect(standups.first { $0.recurrenceID == moved }?.start == moved.addingTimeInterval(3600))
            #expect(live.first { $0.meetingIdentity == "old" }?.start == threeYears)

            // Later syncs keep what history brought.
            try await server.writer.put(server.objectURL("work", "new.ics"), ics: server.event(uid: "new", summary: "New", days: 2))
            try await server.sync()
            let after = Set(await server.mirror.liveEvents(calendar: work).map(\.meetingIdentity))
            #expect(after.isSuperset(of: ["review", "after", "old", "now", "new"]))
        }
    }

    @Test("a disabled calendar is not asked for history; the enabled one is")
    func disabledCalendarsAreNotAsked() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            try await server.writer.makeCalendar(server.calendarURL("holidays"), displayName: "Holidays")
            try await server.writer.put(server.objectURL("work", "review.ics"), ics: server.event(uid: "review", summary: "Review", days: -395))
            try await server.writer.put(server.objectURL("holidays", "day.ics"), ics: server.event(uid: "day", summary: "Holiday", days: -395))
            try await server.sync()
            await server.mirror.setEnabled(calendar: server.remoteID("holidays"), false)
            let yearAgo = server.at(days: -395)
            let report = try await server.fetchHistory([DateInterval(start: yearAgo.addingTimeInterval(-86_400), end: yearAgo.addingTimeInterval(86_400))])
            #expect(report.calendars == 1)
            #expect(report.requests == 1, "one calendar-query, for Work only")
            #expect(await server.mirror.liveEvents(calendar: server.remoteID("work")).map(\.meetingIdentity) == ["review"])
            #expect(await server.mirror.liveEvents(calendar: server.remoteID("holidays")).isEmpty)
        }
    }
}
