import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// What the CLI prints is safe to show: calendar and file text never drives the terminal
/// (escape sequences, carriage returns, bidi overrides), in tables, CSV and JSON alike.
@Suite("steno output safety", .blocksThreads, .serialized)
struct OutputSafetyCLITests {
    /// A title that recolours and retitles the terminal, rings it and shows text backwards.
    static let hostileTitle = "Evil \u{1B}[31mred\u{1B}]0;pwned\u{07} \u{202E}gnp.exe\u{9B}2J\u{7F}end"
    /// A file name that recolours, then overwrites its own line.
    static let hostileFileName = "\u{1B}[31mred\rcall\u{202E}.wav"

    /// A scalar that must never reach a terminal raw: C0 but a line break, DEL, C1, bidi controls.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
            || [0x061C, 0x200E, 0x200F, 0x2066, 0x2067, 0x2068, 0x2069].contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value)
    }

    /// A daemon whose admin sees alice's hostile meeting (ICS file account) and hostile recording.
    static func hostileDaemon() throws -> TestDaemon {
        let daemon = try TestDaemon(config: "[watcher]\nsettle_seconds = 3600\n")
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        let calendar = daemon.root + "/hostile.ics"
        try ICalendarText.calendar(
            ICalendarText.event(
                uid: "hostile-1", title: hostileTitle, start: start, end: start.addingTimeInterval(3600),
                organizer: "alice@example.com", attendees: ["CN=\u{1B}[2JMallory\u{202E}:mailto:mallory@example.com"])
        ).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try IngestionEndToEndTests.wav(seed: 4).write(to: URL(fileURLWithPath: folder + "/" + hostileFileName))
        let ingested = try steno(daemon, ["ingest", folder + "/" + hostileFileName, "--wait", "--timeout", "60"])
        try #require(ingested.status == 0, "\(ingested.stderr)")
        expectSafe(ingested, "ingest --wait")
        return daemon
    }

    static func expectSafe(_ result: CommandResult, _ what: String) {
        for (stream, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
            let unsafe = text.unicodeScalars.filter(isUnsafe).map { String($0.value, radix: 16) }
            #expect(unsafe.isEmpty, "\(what) wrote control characters \(unsafe) to \(stream): \(text.debugDescription)")
        }
    }

    @Test func hostileCalendarAndFileTextIsNeutralisedInTablesCSVAndJSON() throws {
        let daemon = try Self.hostileDaemon()
        defer { daemon.shutdown() }
        let meetings = try steno(daemon, ["meetings", "--json"] + everyMeeting)
        let meeting = try #require(try JSONValue.parse(meetings.stdout).arrayValue?.first)
        #expect(meeting["title"]?.stringValue == Self.hostileTitle, "JSON keeps the text, escaped")
        let meetingID = try #require(meeting["id"]?.intValue)
        let recordings = try steno(daemon, ["recordings", "--json"])
        let recordingID = try #require(try JSONValue.parse(recordings.stdout).arrayValue?.first?["id"]?.intValue)

        let commands: [[String]] = [
            ["meetings"] + everyMeeting, ["meetings", "show", String(meetingID)], ["search", "Evil"], ["recordings"],
            ["recordings", "show", String(recordingID)], ["recordings", "explain", String(recordingID)], ["links"],
            ["attendees", String(meetingID)], ["accounts"],
        ]
        for command in commands {
            for format in [[], ["--output", "csv"], ["--json"]] {
                let result = try steno(daemon, command + format)
                #expect(result.status == 0, "\(command + format): \(result.stderr)")
                Self.expectSafe(result, (command + format).joined(separator: " "))
            }
        }
        // What is left stays readable: the words around the control characters.
        let table = try steno(daemon, ["meetings"] + everyMeeting).stdout
        #expect(table.contains("Evil") && table.contains("red") && table.contains("gnp.exe"), "\(table)")
        #expect(try steno(daemon, ["recordings"]).stdout.contains("call"))
        // An error quoting provider text is neutralised too.
        let refused = try steno(daemon, ["recordings", "--owner", "\u{1B}[31mnobody"])
        Self.expectSafe(refused, "recordings --owner ESC")
    }
}
