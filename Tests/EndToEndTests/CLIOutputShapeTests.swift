import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import Testing

/// The shape of what every command prints: whole lines, tables that fit the terminal, CSV and
/// JSON a program can read whole.
@Suite("steno output shape", .serialized)
struct CLIOutputShapeTests {
    /// More meetings than one page (100) of a list, with long titles and attendee names.
    static let meetingCount = 120

    /// A daemon with alice's ICS account of `meetingCount` meetings yesterday and one recording
    /// linked by hand to the first; returns it and the ids of that meeting and recording.
    static func busyDaemon() throws -> (daemon: TestDaemon, meeting: Int64, recording: Int64) {
        let daemon = try TestDaemon(config: "[watcher]\nsettle_seconds = 3600\n")
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com", "--display-name", "Alice Martin"]).status == 0)
        var events: [String] = []
        for index in 0..<meetingCount {
            let start = ICalendarText.yesterday.addingTimeInterval(Double(index) * 600)
            events += ICalendarText.event(
                uid: "busy-\(index)", title: "Quarterly planning review with the extended product and engineering group \(index)",
                start: start, end: start.addingTimeInterval(540), organizer: "alice@example.com",
                attendees: ["PARTSTAT=ACCEPTED;CN=Bartholomew Featherstonehaugh-Whittington:mailto:bartholomew.featherstonehaugh@example.com"])
        }
        let calendar = daemon.root + "/busy.ics"
        try ICalendarText.calendar(events).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/a recording with a rather long file name from the quarterly planning review.wav"
        try IngestionEndToEndTests.wav(seed: 5).write(to: URL(fileURLWithPath: file))
        let ingested = try steno(daemon, ["ingest", file, "--wait", "--timeout", "60"])
        try #require(ingested.status == 0, "\(ingested.stderr)")
        let meetings = try JSONValue.parse(try steno(daemon, ["meetings", "--all", "--json"]).stdout)
        let meeting = try #require(meetings.arrayValue?.compactMap { $0["id"]?.intValue }.min())
        let recordings = try JSONValue.parse(try steno(daemon, ["recordings", "--json"]).stdout)
        let recording = try #require(recordings.arrayValue?.first?["id"]?.intValue)
        let linked = try steno(daemon, ["link", String(recording), String(meeting)])
        try #require(linked.status == 0, "\(linked.stderr)")
        return (daemon, meeting, recording)
    }

    /// Every read-only command a person runs, with its arguments.
    static func everyCommand(meeting: Int64, recording: Int64) -> [[String]] {
        [
            ["status"], ["users"], ["accounts"], ["calendars"], ["meetings"], ["meetings", "show", String(meeting)],
            ["attendees", String(meeting)], ["search", "planning"], ["recordings"], ["recordings", "show", String(recording)],
            ["recordings", "explain", String(recording)], ["links"], ["links", "history", String(recording)], ["jobs"],
        ]
    }

    @Test func everyOutputEndsWithANewline() throws {
        let (daemon, meeting, recording) = try Self.busyDaemon()
        defer { daemon.shutdown() }
        var commands = Self.everyCommand(meeting: meeting, recording: recording)
        commands.append(["sync", "--wait"])
        for command in commands {
            for format in [[], ["--output", "csv"], ["--json"]] {
                let result = try steno(daemon, command + format)
                #expect(result.status == 0, "\(command + format): \(result.stderr)")
                #expect(result.stdout.hasSuffix("\n"), "\(command + format) ends without a newline: \(result.stdout.suffix(80).debugDescription)")
            }
        }
    }
}
