import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Events whose fields are far larger than any real calendar writes — a title of a megabyte,
/// a hundred thousand attendees — are held to the mirror's bounds, whichever provider brings
/// them, and the daemon says so in its log.
@Suite("Event field bounds end to end", .blocksThreads, .serialized)
struct EventFieldBoundsEndToEndTests {
    static let hugeTitle = "Quarterly " + String(repeating: "ü", count: 500_000)

    /// Every attendee of a meeting, following pages.
    func attendees(_ daemon: TestDaemon, meeting: Int64) throws -> [Attendee] {
        var cursor: String?
        var all: [Attendee] = []
        for _ in 0..<100 {
            let page = try daemon.client().call(StenoMethods.attendeesList, AttendeeListParams(id: meeting, cursor: cursor, limit: 1000))
            all += page.items
            cursor = page.nextCursor
            if cursor == nil { break }
        }
        return all
    }

    @Test func aPhonePushingAHugeEventStoresItWithinTheBounds() async throws {
        let daemon = try DeviceAgentEndToEndTests.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, _) = try await http.pair(daemon)
        let people: [JSONValue] = (0..<100_000).map { ["email": .string("p\($0)@example.com")] }
        let event: JSONValue = [
            "externalId": "HUGE", "externalCalendarId": "CAL", "title": .string(Self.hugeTitle), "date": "2026-11-25",
            "startTime": "10:00", "endTime": "11:00", "attendees": .array(people), "location": .string(String(repeating: "L", count: 100_000)),
        ]
        let pushed = try await http.post("/sync/apple/events/upsert", token: token, json: ["events": [event]])
        #expect(pushed.status == 200 && pushed.json["counts"]?["ok"]?.intValue == 1, "\(pushed.status) \(pushed.json)")
        let meeting = try #require(
            try daemon.client().call(StenoMethods.meetingsList, MeetingListParams(from: ICalendarText.yesterday.addingTimeInterval(-400 * 86_400))).items
                .first { $0.title.hasPrefix("Quarterly") })
        #expect(meeting.title.utf8.count <= EventFieldLimits.standard.textBytes && meeting.title.hasSuffix("…"))
        let invited = try attendees(daemon, meeting: meeting.id)
        #expect(invited.count <= EventFieldLimits.standard.attendees && invited.count >= 1_000, "\(invited.count) attendees kept")
        // The daemon still answers at once.
        #expect(try daemon.client().call(StenoMethods.systemVersion).apiVersion >= 1)
    }

    @Test func anICSCalendarWithAHugeEventIsMirroredWithinTheBoundsAndSaysSo() throws {
        let daemon = try TestDaemon()
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let start = ICalendarText.yesterday.addingTimeInterval(10 * 3600)
        let lines = ICalendarText.event(
            uid: "huge@example.com", title: Self.hugeTitle, start: start, end: start.addingTimeInterval(3600), organizer: "alice@example.com",
            attendees: (0..<5_000).map { "CN=P\($0):mailto:p\($0)@example.com" })
        let calendar = daemon.root + "/huge.ics"
        try ICalendarText.calendar(lines).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        let meeting = try #require(
            try daemon.client().call(StenoMethods.meetingsList, MeetingListParams(from: start.addingTimeInterval(-3600))).items
                .first { $0.title.hasPrefix("Quarterly") })
        #expect(meeting.title.utf8.count <= EventFieldLimits.standard.textBytes)
        #expect(try attendees(daemon, meeting: meeting.id).count <= EventFieldLimits.standard.attendees)
        let logged = try poll(timeout: 10, { daemon.log }, until: { $0.contains("cut over-long event fields") })
        #expect(logged.contains("attendees of 1") && logged.contains("title of 1"), "\(logged.suffix(2000))")
        let listed = try steno(daemon, ["search", "Quarterly"])
        #expect(listed.stdout.utf8.count < 64 * 1024, "search printed \(listed.stdout.utf8.count) bytes")
    }
}
