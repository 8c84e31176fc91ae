import Foundation
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// First syncs and slid windows list a calendar by time range (calendar-query) against a real
/// Radicale: years of history are not downloaded, and a slid window asks only for what it gained.
@Suite(
    "CalDAV listing by time range against Radicale", .serialized,
    .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
struct CalDAVTimeRangeSyncTests {
    /// A weekly series from `start` without end.
    func weekly(_ server: CalDAVTestServer, uid: String, start: Date) -> String {
        TestEvents.calendar([
            "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART:\(TestEvents.utc(start))",
            "DTEND:\(TestEvents.utc(start.addingTimeInterval(1800)))", "RRULE:FREQ=WEEKLY", "SUMMARY:Weekly \(uid)", "END:VEVENT",
        ])
    }

    @Test("a first sync fetches the window's objects only: years-old events are neither downloaded nor mirrored")
    func firstSyncByTimeRange() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            for (index, days) in [-3000.0, -2000, -900, -400].enumerated() {
                try await server.writer.put(server.objectURL("work", "old\(index).ics"), ics: server.event(uid: "old\(index)", summary: "Old", days: days))
            }
            for index in 0..<3 {
                try await server.writer.put(
                    server.objectURL("work", "now\(index).ics"), ics: server.event(uid: "now\(index)", summary: "Now", days: Double(index * 10 - 5)))
            }
            // A series that began years ago still has occurrences in the window.
            try await server.writer.put(server.objectURL("work", "series.ics"), ics: weekly(server, uid: "series", start: server.at(days: -1500)))

            let first = try await server.sync()
            #expect(first.fullSyncs == 1)
            let fetched = Set(await server.mirror.updatedResources)
            #expect(fetched == Set(["now0", "now1", "now2", "series"].map { "/alice/work/\($0).ics" }))
            #expect(try await server.mirror.resourceTags(calendarRemoteID: server.remoteID("work")).count == 4)
            let live = await server.mirror.liveEvents(calendar: server.remoteID("work"))
            #expect(Set(live.map(\.meetingIdentity)).isSuperset(of: ["now0", "now1", "now2"]))
            #expect(live.filter { $0.seriesUID == "series" }.count > 70)

            // Later syncs ask sync-collection for changes since the token read before the listing.
            try await server.writer.put(server.objectURL("work", "new.ics"), ics: server.event(uid: "new", summary: "Added", days: 2))
            try await server.writer.delete(server.objectURL("work", "now1.ics"))
            let second = try await server.sync()
            #expect(second.fullSyncs == 0)
            #expect(second.requests <= 5)
            #expect(second.changes.inserted == 1)
            #expect(second.changes.deleted == 1)
            let after = Set(await server.mirror.liveEvents(calendar: server.remoteID("work")).map(\.meetingIdentity))
            #expect(after.contains("new") && !after.contains("now1"))
        }
    }

    @Test("syncs while the window slides: after a week of daily syncs the objects of the part gained, and only those, are expanded again")
    func slidingWindowAsksForTheGainedPart() async throws {
        try await CalDAVTestServer.run { server in
            try await server.writer.makeCalendar(server.calendarURL("work"), displayName: "Work")
            try await server.writer.put(server.objectURL("work", "series.ics"), ics: weekly(server, uid: "series", start: server.at(days: -30)))
            for index in 0..<5 {
                try await server.writer.put(
                    server.objectURL("work", "e\(index).ics"), ics: server.event(uid: "e\(index)", summary: "E", days: Double(index * 20)))
            }
            // Just beyond the window's far end (365 days ahead) at the first sync.
            try await server.writer.put(server.objectURL("work", "far.ics"), ics: server.event(uid: "far", summary: "Far", days: 369))
            let start = server.now
            try await server.sync()
            #expect(!(await server.mirror.liveEvents(calendar: server.remoteID("work")).contains { $0.meetingIdentity == "far" }))
            let seriesBefore = await server.mirror.liveEvents(calendar: server.remoteID("work")).filter { $0.seriesUID == "series" }.count

            var fetchedBefore = await server.mirror.updatedResources.count
            for day in [2.0, 4, 6] {
                server.now = start.addingTimeInterval(day * 86_400)
                let report = try await server.sync()
                #expect(report.fullSyncs == 0)
                #expect(await server.mirror.updatedResources.count == fetchedBefore)
            }
            fetchedBefore = await server.mirror.updatedResources.count
            server.now = start.addingTimeInterval(8 * 86_400)
            let slid = try await server.sync()
            #expect(slid.fullSyncs == 0)
            #expect(Set(await server.mirror.updatedResources.dropFirst(fetchedBefore)) == ["/alice/work/series.ics", "/alice/work/far.ics"])
            let live = await server.mirror.liveEvents(calendar: server.remoteID("work"))
            #expect(live.contains { $0.meetingIdentity == "far" })
            #expect(live.filter { $0.seriesUID == "series" }.count > seriesBefore)
        }
    }
}
