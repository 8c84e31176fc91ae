import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// The bytes `steno meetings` and `steno recordings` write with `-o json` and `-o csv`: JSON is
/// written from the pages as the daemon sent them (no decode and encode again), and must stay
/// exactly what the typed values encode to, optional fields present and absent; CSV quotes
/// cells with commas and quotes.
@Suite("steno list output bytes", .blocksThreads, .serialized)
struct ListOutputCLITests {
    /// Today, midnight UTC: inside the calendar's mirrored window.
    static let today = ICalendarText.yesterday.addingTimeInterval(86_400)

    /// `YYYY-MM-DD` in UTC.
    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    /// A meeting with every optional field (organizer, attendee, location, a link, a recording), one
    /// with none, an all-day one and a cancelled one.
    static func events() -> [String] {
        let at = { (hour: Double) in today.addingTimeInterval(hour * 3600) }
        var full = ICalendarText.event(
            uid: "full", title: #"Full, "quoted" review"#, start: at(9), end: at(10), organizer: "alice@example.com",
            attendees: ["PARTSTAT=ACCEPTED;CN=Bob:mailto:bob@example.com"])
        full.insert(contentsOf: ["LOCATION:Room 1", "URL:https://meet.example.com/full"], at: full.count - 1)
        var cancelled = ICalendarText.event(uid: "cancelled", title: "Cancelled sync", start: at(14), end: at(15), organizer: "alice@example.com")
        cancelled.insert("STATUS:CANCELLED", at: cancelled.count - 1)
        let allDay = [
            "BEGIN:VEVENT", "UID:offsite", "DTSTAMP:20260101T000000Z", "DTSTART;VALUE=DATE:\(String(ICalendarText.utc(today).prefix(8)))",
            "DTEND;VALUE=DATE:\(String(ICalendarText.utc(today.addingTimeInterval(2 * 86_400)).prefix(8)))", "SUMMARY:Offsite",
            "ORGANIZER:mailto:alice@example.com", "END:VEVENT",
        ]
        return full + ICalendarText.event(uid: "minimal", title: "Minimal", start: at(11), end: at(11.5)) + cancelled + allDay
    }

    /// A daemon with those meetings and one recording linked to the full one (the organizer
    /// counts among the attendees).
    static func daemon() throws -> (daemon: TestDaemon, recording: Int64) {
        let daemon = try TestDaemon(config: "[watcher]\nsettle_seconds = 3600\n")
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let calendar = daemon.root + "/alice.ics"
        try ICalendarText.calendar(events()).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/review.wav"
        try IngestionEndToEndTests.wav(seed: 3).write(to: URL(fileURLWithPath: file))
        let ingested = try steno(daemon, ["ingest", file, "--wait", "--timeout", "60"])
        try #require(ingested.status == 0, "\(ingested.stderr)")
        let client = try StenoClient(socketPath: daemon.socketPath)
        let recording = try #require(try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 10)).items.first?.id)
        let meeting = try #require(
            try client.call(StenoMethods.meetingsList, MeetingListParams(title: "quoted", limit: 10)).items.first?.id)
        let linked = try steno(daemon, ["link", String(recording), String(meeting), "--force"])
        try #require(linked.status == 0, "\(linked.stderr)")
        return (daemon, recording)
    }

    /// The JSON of typed values as `steno … -o json` wrote it before pages were written as sent.
    static func typedJSON<Item: Encodable>(_ items: [Item]) throws -> String {
        try JSONValueEncoder().encode(items).prettyPrinted() + "\n"
    }

    @Test func meetingAndRecordingPagesPrintTheBytesOfTheirTypedValues() throws {
        let (daemon, recordingID) = try Self.daemon()
        defer { daemon.shutdown() }
        let client = try StenoClient(socketPath: daemon.socketPath)
        let range = ["--from", Self.day(Self.today), "--to", Self.day(Self.today.addingTimeInterval(2 * 86_400)), "--tz", "UTC", "--all"]

        let meetings = try client.call(
            StenoMethods.meetingsList,
            MeetingListParams(
                from: Self.today, to: Self.today.addingTimeInterval(3 * 86_400), hideGone: true, newestFirst: false, limit: 1000)
        ).items
        #expect(meetings.map(\.title) == ["Offsite", #"Full, "quoted" review"#, "Minimal", "Cancelled sync"], "\(meetings)")
        #expect(meetings.contains { $0.location != nil && $0.organizer != nil && !$0.recordings.isEmpty && $0.onlineMeetingURL != nil })
        #expect(meetings.contains { $0.organizer == nil && $0.location == nil && $0.recordings.isEmpty })
        let json = try steno(daemon, ["meetings"] + range + ["-o", "json"])
        try #require(json.status == 0, "\(json.stderr)")
        #expect(json.stdout == (try Self.typedJSON(meetings)), "\(json.stdout)")

        let csv = try steno(daemon, ["meetings"] + range + ["-o", "csv"])
        try #require(csv.status == 0, "\(csv.stderr)")
        let (full, minimal, cancelled, offsite) = (meetings[1].id, meetings[2].id, meetings[3].id, meetings[0].id)
        let date = Self.day(Self.today)
        let lastDay = Self.day(Self.today.addingTimeInterval(86_400))
        #expect(
            csv.stdout == """
                ID,START,END,TITLE,ORGANIZER,ATTENDEES,RECORDINGS
                \(offsite),\(date),\(lastDay),Offsite,alice@example.com,1,-
                \(full),\(date) 09:00 +00:00,10:00,"Full, ""quoted"" review",alice@example.com,2,\(recordingID)
                \(minimal),\(date) 11:00 +00:00,11:30,Minimal,-,0,-
                \(cancelled),\(date) 14:00 +00:00,15:00,Cancelled sync (cancelled),alice@example.com,1,-

                """, "\(csv.stdout)")

        let recordings = try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 1000)).items
        let recording = try #require(recordings.first)
        #expect(recording.failureReason == nil && recording.iCalUIDHint == nil, "optional fields absent: \(recording)")
        let recordingsJSON = try steno(daemon, ["recordings", "--all", "-o", "json"])
        try #require(recordingsJSON.status == 0, "\(recordingsJSON.stderr)")
        #expect(recordingsJSON.stdout == (try Self.typedJSON(recordings)), "\(recordingsJSON.stdout)")
        let recordingsCSV = try steno(daemon, ["recordings", "--all", "-o", "csv", "--tz", "UTC"])
        try #require(recordingsCSV.status == 0, "\(recordingsCSV.stderr)")
        let recorded = try #require(recording.recordedAt)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let duration = try #require(recording.duration)
        #expect(
            recordingsCSV.stdout == """
                ID,RECORDED,OWNER,LENGTH,FORMAT,STATUS,PATH
                \(recordingID),\(formatter.string(from: recorded)) +00:00,alice,\(String(format: "%.1fs", duration)),\(recording.format ?? "-"),\
                \(recording.status.rawValue),\(recording.paths.first?.path ?? "-")

                """, "\(recordingsCSV.stdout)")
    }
}
