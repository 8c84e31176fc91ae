import Foundation
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// The CalDAV provider against a real Radicale started by the tests (127.0.0.1 only).
@Suite("CalDAV provider against Radicale", .serialized, .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
struct CalDAVProviderTests {
    @Test("discovery from the server root finds the home, the event calendars and the capabilities")
    func discovery() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work", color: "#FF8800FF")
            try await server.writer.makeCalendar(server.calendarURL("home cal"), displayName: "Zuhause 🏠")
            try await server.writer.makeCalendar(server.calendarURL("tasks"), displayName: "Tasks", components: ["VTODO"])

            let report = try await server.sync()
            #expect(report.calendars == 2)
            let calendars = try await server.mirror.calendars()
            #expect(Set(calendars.map(\.remoteID)) == ["/alice/work/", "/alice/home%20cal/"])
            #expect(calendars.first { $0.remoteID == "/alice/work/" }?.color == "#FF8800")
            #expect(calendars.first { $0.remoteID == "/alice/home%20cal/" }?.name == "Zuhause 🏠")
            let stored = await server.mirror.account(server.account)
            let state = try #require(CalDAVStateCoding.decode(CalDAVAccountState.self, from: stored.syncState))
            #expect(state.homeURL.hasSuffix("/alice/"))
            let capabilities = try #require(CalDAVStateCoding.decode(CalDAVCapabilities.self, from: stored.capabilities))
            #expect(capabilities.syncCollection && capabilities.calendarMultiget)
            #expect(capabilities.davClasses.contains("calendar-access"))

            // Later syncs neither discover nor probe again: the listing and one (empty)
            // sync-collection per calendar.
            let again = try await server.sync()
            #expect(again.requests == 3)
            #expect(again.fullSyncs == 0)
        }
    }

    @Test("full sync, then add/modify/delete through CalDAV: the incremental sync applies exactly those, in ≤ 5 requests")
    func incremental() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            for index in 0..<6 {
                try await server.writer.put(
                    server.objectURL("work", "e\(index).ics"), ics: server.event(uid: "e\(index)", summary: "Meeting \(index)", days: Double(index)))
            }
            let first = try await server.sync()
            #expect(first.fullSyncs == 1)
            #expect(first.changes.inserted == 6)
            #expect(await server.mirror.liveEvents(calendar: server.remoteID("work")).count == 6)

            try await server.writer.put(server.objectURL("work", "new.ics"), ics: server.event(uid: "new", summary: "Added", days: 2))
            try await server.writer.put(server.objectURL("work", "e1.ics"), ics: server.event(uid: "e1", summary: "Renamed", days: 1))
            try await server.writer.delete(server.objectURL("work", "e2.ics"))

            let second = try await server.sync()
            #expect(second.fullSyncs == 0)
            #expect(second.requests <= 5)
            #expect(second.changes.inserted == 1)
            #expect(second.changes.updated == 1)
            #expect(second.changes.deleted == 1)
            let live = await server.mirror.liveEvents(calendar: server.remoteID("work"))
            #expect(Set(live.map(\.meetingIdentity)) == ["e0", "e1", "e3", "e4", "e5", "new"])
            #expect(live.first { $0.meetingIdentity == "e1" }?.title == "Renamed")
            #expect(live.first { $0.meetingIdentity == "new" }?.title == "Added")

            // Nothing changed: the listing and an empty sync-collection.
            let third = try await server.sync()
            #expect(third.requests == 2)
            #expect(third.changes == MirrorChangeSummary())
        }
    }

    @Test("a recurring series with an override and an EXDATE")
    func recurring() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            let start = server.at(days: 1)
            let third = start.addingTimeInterval(2 * 86_400)
            let fifth = start.addingTimeInterval(4 * 86_400)
            let ics = TestEvents.calendar([
                "BEGIN:VEVENT", "UID:standup", "DTSTAMP:20260101T000000Z", "DTSTART:\(TestEvents.utc(start))",
                "DTEND:\(TestEvents.utc(start.addingTimeInterval(900)))", "RRULE:FREQ=DAILY;COUNT=7", "EXDATE:\(TestEvents.utc(third))",
                "SUMMARY:Stand-up", "END:VEVENT",
                "BEGIN:VEVENT", "UID:standup", "DTSTAMP:20260101T000000Z", "RECURRENCE-ID:\(TestEvents.utc(fifth))",
                "DTSTART:\(TestEvents.utc(fifth.addingTimeInterval(3600)))", "DTEND:\(TestEvents.utc(fifth.addingTimeInterval(4500)))",
                "SUMMARY:Stand-up (moved)", "END:VEVENT",
            ])
            try await server.writer.put(server.objectURL("work", "standup.ics"), ics: ics)
            try await server.sync()
            let live = await server.mirror.liveEvents(calendar: server.remoteID("work"))
            #expect(live.count == 6)
            #expect(!live.contains { $0.recurrenceID == third })
            let moved = try #require(live.first { $0.recurrenceID == fifth })
            #expect(moved.title == "Stand-up (moved)")
            #expect(moved.start == fifth.addingTimeInterval(3600))
            #expect(moved.remoteID == "/alice/work/standup.ics#\(MeetingIdentity.basicUTC(fifth))")
            #expect(Set(live.map(\.seriesUID)) == ["standup"])
        }
    }

    @Test("attendees with non-ASCII names")
    func nonASCIIAttendees() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            let ics = server.event(
                uid: "intl", summary: "Réunion — 会議", days: 3,
                extra: [
                    "ORGANIZER;CN=Zoë Müller:mailto:zoe@example.com",
                    "ATTENDEE;CN=Zoë Müller;PARTSTAT=ACCEPTED:mailto:zoe@example.com",
                    "ATTENDEE;CN=東京;ROLE=OPT-PARTICIPANT;PARTSTAT=TENTATIVE:mailto:tokyo@example.jp",
                    "ATTENDEE;CN=\"Ødegård, Åse\";PARTSTAT=DECLINED:mailto:ASE@example.no",
                ])
            try await server.writer.put(server.objectURL("work", "intl.ics"), ics: ics)
            try await server.sync()
            let event = try #require(await server.mirror.liveEvents(calendar: server.remoteID("work")).first)
            #expect(event.title == "Réunion — 会議")
            #expect(event.organizer?.name == "Zoë Müller")
            let byEmail = Dictionary(uniqueKeysWithValues: event.attendees.map { ($0.email, $0) })
            #expect(byEmail["zoe@example.com"]?.name == "Zoë Müller")
            #expect(byEmail["tokyo@example.jp"]?.name == "東京")
            #expect(byEmail["tokyo@example.jp"]?.role == .optional)
            #expect(byEmail["ase@example.no"]?.name == "Ødegård, Åse")
            #expect(byEmail["ase@example.no"]?.response == .declined)
        }
    }

    @Test("an invalid sync token: a full re-sync that neither loses nor duplicates events")
    func invalidToken() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            for index in 0..<5 {
                try await server.writer.put(server.objectURL("work", "e\(index).ics"), ics: server.event(uid: "e\(index)", summary: "M\(index)", days: Double(index)))
            }
            try await server.sync()
            // The server forgets the token (or it expired): a well-formed but unknown one.
            let remoteID = server.remoteID("work")
            var state = try #require(CalDAVStateCoding.decode(CalDAVCalendarState.self, from: await server.mirror.syncState(calendar: remoteID)))
            state.syncToken = "http://radicale.org/ns/sync/" + String(repeating: "0", count: 64)
            state.ctag = "stale"
            await server.mirror.overwriteSyncState(calendar: remoteID, with: CalDAVStateCoding.encode(state))
            try await server.writer.put(server.objectURL("work", "e1.ics"), ics: server.event(uid: "e1", summary: "Changed", days: 1))
            try await server.writer.delete(server.objectURL("work", "e4.ics"))
            try await server.writer.put(server.objectURL("work", "e9.ics"), ics: server.event(uid: "e9", summary: "M9", days: 9))

            let report = try await server.sync()
            #expect(report.fullSyncs == 1)
            // Only what differs from the mirror is fetched again.
            #expect(report.changes.inserted == 1)
            #expect(report.changes.updated == 1)
            #expect(report.changes.deleted == 1)
            let live = await server.mirror.liveEvents(calendar: remoteID)
            #expect(live.map(\.meetingIdentity).sorted() == ["e0", "e1", "e2", "e3", "e9"])
            #expect(live.first { $0.meetingIdentity == "e1" }?.title == "Changed")
            let newState = try #require(CalDAVStateCoding.decode(CalDAVCalendarState.self, from: await server.mirror.syncState(calendar: remoteID)))
            #expect(newState.syncToken != state.syncToken)
            // And the next sync is incremental again.
            try await server.writer.put(server.objectURL("work", "e0.ics"), ics: server.event(uid: "e0", summary: "Again", days: 0))
            let next = try await server.sync()
            #expect(next.fullSyncs == 0)
            #expect(next.changes.updated == 1)
        }
    }

    @Test("a wrong password: needs credentials, with the account URL in the message")
    func wrongPassword() async throws {
        try await CalDAVTestServer.run { server in
            do {
                try await server.sync(password: "wrong")
                Issue.record("the sync succeeded with a wrong password")
            } catch let error as CalendarSyncError {
                guard case .needsCredentials(let message) = error else {
                    Issue.record("expected needsCredentials, got \(error)")
                    return
                }
                #expect(message.contains(server.radicale.baseURL.absoluteString))
                #expect(message.contains("401"))
            }
        }
    }

    @Test("a calendar larger than one multiget chunk")
    func chunked() async throws {
        try await CalDAVTestServer.run { server in
            server.options.multigetChunkSize = 20
            try await server.writer.makeCalendar(server.calendarURL("big"), displayName: "Big")
            for index in 0..<95 {
                try await server.writer.put(server.objectURL("big", "b\(index).ics"), ics: server.event(uid: "b\(index)", summary: "B\(index)", days: Double(index % 30)))
            }
            let report = try await server.sync()
            #expect(await server.mirror.liveEvents(calendar: server.remoteID("big")).count == 95)
            #expect(report.changes.inserted == 95)
            // discovery (well-known, principal…), listing, probe, sync-collection, 5 multigets.
            #expect(report.requests >= 5 + 2)
            // After a window that slid past all of the old one, the objects of the part gained
            // (here every one) are fetched and expanded again, and nothing changes.
            let remoteID = server.remoteID("big")
            var state = try #require(CalDAVStateCoding.decode(CalDAVCalendarState.self, from: await server.mirror.syncState(calendar: remoteID)))
            state.windowDay = "20000101"
            state.windowEndDay = "20010101"
            await server.mirror.overwriteSyncState(calendar: remoteID, with: CalDAVStateCoding.encode(state))
            let again = try await server.sync()
            #expect(again.fullSyncs == 0)
            #expect(again.changes.unchanged == 95)
            #expect(again.changes.inserted + again.changes.updated + again.changes.deleted == 0)
        }
    }

    @Test("without sync-collection: CTag, then ETag comparison")
    func etagFallback() async throws {
        try await CalDAVTestServer.run { server in
            server.account.capabilities = CalDAVStateCoding.encode(
                CalDAVCapabilities(syncCollection: false, calendarMultiget: true, calendarQuery: true, scheduling: false, davClasses: []))
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            for index in 0..<4 {
                try await server.writer.put(server.objectURL("work", "e\(index).ics"), ics: server.event(uid: "e\(index)", summary: "M\(index)", days: Double(index)))
            }
            let first = try await server.sync()
            #expect(first.changes.inserted == 4)
            let unchanged = try await server.sync()
            #expect(unchanged.requests == 1)

            try await server.writer.put(server.objectURL("work", "e0.ics"), ics: server.event(uid: "e0", summary: "Changed", days: 0))
            try await server.writer.delete(server.objectURL("work", "e3.ics"))
            try await server.writer.put(server.objectURL("work", "n.ics"), ics: server.event(uid: "n", summary: "New", days: 5))
            let second = try await server.sync()
            #expect(second.requests == 3)  // listing, PROPFIND of ETags, one multiget
            #expect(second.changes.inserted == 1)
            #expect(second.changes.updated == 1)
            #expect(second.changes.deleted == 1)
            let live = await server.mirror.liveEvents(calendar: server.remoteID("work"))
            #expect(live.map(\.meetingIdentity).sorted() == ["e0", "e1", "e2", "n"])
        }
    }

    @Test("an object without occurrences in the window is compared by its ETag, not fetched on every sync")
    func outOfWindowObjectKeepsItsETag() async throws {
        try await CalDAVTestServer.run { server in
            server.account.capabilities = CalDAVStateCoding.encode(
                CalDAVCapabilities(syncCollection: false, calendarMultiget: true, calendarQuery: true, scheduling: false, davClasses: []))
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            try await server.writer.put(server.objectURL("work", "old.ics"), ics: server.event(uid: "old", summary: "Old", days: -2000))
            try await server.writer.put(server.objectURL("work", "x.ics"), ics: server.event(uid: "x", summary: "X", days: 1))
            try await server.sync()
            #expect(try await server.mirror.resourceTags(calendarRemoteID: server.remoteID("work")).count == 2)
            // Another object changes, the old one does not: only the changed one is fetched.
            try await server.writer.put(server.objectURL("work", "x.ics"), ics: server.event(uid: "x", summary: "X2", days: 1))
            let fetchedBefore = await server.mirror.updatedResources.count
            let second = try await server.sync()
            #expect(second.requests == 3)  // listing, PROPFIND of ETags, one multiget
            #expect(await server.mirror.updatedResources.dropFirst(fetchedBefore) == ["/alice/work/x.ics"])
            #expect(second.changes.updated == 1)
            // Deleted at the source: forgotten.
            try await server.writer.delete(server.objectURL("work", "old.ics"))
            try await server.sync()
            #expect(try await server.mirror.resourceTags(calendarRemoteID: server.remoteID("work")).keys.sorted() == ["/alice/work/x.ics"])
        }
    }

    @Test("a deleted calendar leaves the mirror; an event-less object keeps the sync consistent")
    func calendarRemoved() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("a"), displayName: "A")
            try await server.writer.makeCalendar(server.calendarURL("b"), displayName: "B")
            try await server.writer.put(server.objectURL("a", "x.ics"), ics: server.event(uid: "x", summary: "X", days: 1))
            // Far outside the window: no occurrence, but a valid object.
            try await server.writer.put(server.objectURL("a", "old.ics"), ics: server.event(uid: "old", summary: "Old", days: -2000))
            try await server.sync()
            try await server.writer.delete(server.calendarURL("b"))
            let report = try await server.sync()
            #expect(report.calendars == 1)
            #expect(try await server.mirror.calendars().map(\.remoteID) == ["/alice/a/"])
            #expect(await server.mirror.liveEvents(calendar: "/alice/a/").map(\.meetingIdentity) == ["x"])
        }
    }
}
