import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// The shape of what every command prints: whole lines, tables that fit the terminal, CSV and
/// JSON a program can read whole.
@Suite("steno output shape", .blocksThreads, .serialized)
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
        let meetings = try JSONValue.parse(try steno(daemon, ["meetings", "--all", "--json"] + everyMeeting).stdout)
        let meeting = try #require(meetings.arrayValue?.compactMap { $0["id"]?.intValue }.min())
        let recordings = try JSONValue.parse(try steno(daemon, ["recordings", "--json"]).stdout)
        let recording = try #require(recordings.arrayValue?.first?["id"]?.intValue)
        // The recording is from today, the meeting from yesterday: linked anyway, on purpose.
        let linked = try steno(daemon, ["link", String(recording), String(meeting), "--force"])
        try #require(linked.status == 0, "\(linked.stderr)")
        return (daemon, meeting, recording)
    }

    /// Every read-only command a person runs, with its arguments.
    static func everyCommand(meeting: Int64, recording: Int64) -> [[String]] {
        [
            ["status"], ["users"], ["accounts"], ["calendars"], ["meetings"] + everyMeeting, ["meetings", "show", String(meeting)],
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

    /// String values anywhere in `value` that are themselves a JSON object or array.
    static func jsonInStrings(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let text):
            guard let inner = try? JSONValue.parse(text), inner.arrayValue != nil || inner.objectValue != nil else { return [] }
            return [text]
        case .array(let values): return values.flatMap(jsonInStrings)
        case .object(let object): return object.values.flatMap(jsonInStrings)
        default: return []
        }
    }

    @Test func csvAndJSONHoldEveryRowWithAllAndSayOnStderrWhenCut() throws {
        let (daemon, meeting, recording) = try Self.busyDaemon()
        defer { daemon.shutdown() }
        for list in [["meetings"] + everyMeeting, ["search", "planning"]] {
            let csv = try steno(daemon, list + ["--output", "csv"])
            #expect(csv.stdout.split(separator: "\n").count == 101, "\(list) CSV: a header and the first 100 rows")
            #expect(csv.stderr.contains("more") && csv.stderr.contains("--all"), "\(list) CSV cut without a word: \(csv.stderr)")
            let allCSV = try steno(daemon, list + ["--output", "csv", "--all"])
            #expect(allCSV.stdout.split(separator: "\n").count > Self.meetingCount, "\(list) --all CSV")
            #expect(allCSV.stderr.isEmpty, "\(allCSV.stderr)")
            let json = try steno(daemon, list + ["--json"])
            #expect(try JSONValue.parse(json.stdout).arrayValue?.count == 100)
            #expect(json.stderr.contains("--all"), "\(list) JSON cut without a word")
            let allJSON = try steno(daemon, list + ["--json", "--all"])
            #expect(try JSONValue.parse(allJSON.stdout).arrayValue?.count ?? 0 >= Self.meetingCount)
            #expect(allJSON.stderr.isEmpty)
            let table = try steno(daemon, list)
            #expect(table.stderr.contains("--all") && !table.stdout.contains("--all"), "the notice goes to stderr only")
        }
        var commands = Self.everyCommand(meeting: meeting, recording: recording)
        commands += [["sync", "--wait"], ["link", String(recording), String(meeting), "--force"]]
        for command in commands {
            let json = try steno(daemon, command + ["--json"])
            #expect(json.status == 0, "\(command): \(json.stderr)")
            let parsed = try JSONValue.parse(json.stdout)
            #expect(Self.jsonInStrings(parsed).isEmpty, "\(command) --json nests JSON in strings: \(Self.jsonInStrings(parsed).prefix(2))")
            let csv = try steno(daemon, command + ["--output", "csv"])
            #expect(csv.status == 0, "\(command): \(csv.stderr)")
            #expect(csv.stdout.split(separator: "\n").count >= 2, "\(command) --output csv has no rows: \(csv.stdout.debugDescription)")
        }
    }

    @Test func aLongLastErrorIsWholeInWideAndCSV() throws {
        let daemon = try TestDaemon(config: "[jobs]\nmax_attempts = 1\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let calendar = daemon.root + "/a calendar file with a long name that disappears before the next sync.ics"
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        try ICalendarText.calendar(ICalendarText.event(uid: "gone-1", title: "Soon gone", start: start, end: start.addingTimeInterval(3600)))
            .write(toFile: calendar, atomically: true, encoding: .utf8)
        try #require(try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"]).status == 0)
        try FileManager.default.removeItem(atPath: calendar)
        #expect(try steno(daemon, ["sync", "--wait"]).status == 1)
        let jobs = try JSONValue.parse(try steno(daemon, ["jobs", "--json", "--state", "dead"]).stdout)
        let error = try #require(jobs.arrayValue?.first?["lastError"]?.stringValue)
        try #require(error.count > 60, "\(error)")
        #expect(try steno(daemon, ["jobs", "-o", "wide"]).stdout.contains(error), "-o wide cuts nothing")
        let quoted = "\"" + error.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        #expect(try steno(daemon, ["jobs", "--output", "csv"]).stdout.contains(quoted), "CSV cuts nothing")
    }

    /// Runs `steno ARGS` on a pseudo-terminal `columns` wide (set on the terminal itself, so
    /// steno reads it with TIOCGWINSZ; `COLUMNS` is set to `columnsVariable` or removed),
    /// bounded in time; returns its lines.
    static func onTerminal(_ daemon: TestDaemon, columns: Int, columnsVariable: Int? = nil, _ arguments: [String]) throws -> [String] {
        let script = """
            import fcntl, os, pty, select, signal, struct, sys, termios, time
            os.environ.pop("COLUMNS", None)
            if sys.argv[2] != "-":
                os.environ["COLUMNS"] = sys.argv[2]
            pid, fd = pty.fork()
            if pid == 0:
                fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, int(sys.argv[1]), 0, 0))
                os.execv(sys.argv[3], sys.argv[3:])
            out, deadline = b"", time.time() + 30
            while time.time() < deadline:
                ready, _, _ = select.select([fd], [], [], 1)
                if not ready:
                    continue
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            else:
                os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            sys.stdout.buffer.write(out.replace(b"\\r\\n", b"\\n"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let result = try runCommand(
            "/usr/bin/python3", ["-c", script, String(columns), columnsVariable.map(String.init) ?? "-", try TestDaemon.executable(named: "steno"), "--socket", daemon.socketPath] + arguments,
            timeout: 60)
        #expect(result.status == 0, "\(arguments): \(result.stdout) \(result.stderr)")
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test(.enabled(if: hasPython || isCI, "needs python3 for a pseudo-terminal"))
    func tablesFitAnEightyColumnTerminalAndWideShowsEverything() throws {
        try #require(Self.hasPython, "needs /usr/bin/python3")
        let (daemon, meeting, recording) = try Self.busyDaemon()
        defer { daemon.shutdown() }
        let title = "Quarterly planning review with the extended product and engineering group 0"
        // `meetings show` prints the whole title on its first line: the terminal wraps it.
        for command in Self.everyCommand(meeting: meeting, recording: recording) where command.prefix(2) != ["meetings", "show"] {
            let lines = try Self.onTerminal(daemon, columns: 80, command)
            #expect(lines.count > 1, "\(command) printed nothing")
            for line in lines where line.count > 80 {
                Issue.record("\(command): a line of \(line.count) columns on an 80-column terminal: \(line)")
            }
        }
        // Text is cut with "…", ids and times are whole.
        let meetings = try Self.onTerminal(daemon, columns: 80, ["meetings"] + everyMeeting)
        let first = try #require(meetings.first { $0.hasPrefix("\(meeting) ") })
        #expect(first.contains("…") && first.contains(Self.minute(ICalendarText.yesterday)), "\(first)")
        // -o wide shows every column whole, even on a terminal.
        let wide = try Self.onTerminal(daemon, columns: 80, ["meetings", "-o", "wide"] + everyMeeting)
        #expect(wide.contains { $0.contains(title) && $0.count > 80 }, "\(wide.prefix(3))")
        #expect(wide.first?.contains("ATTENDEES") == true)
        // COLUMNS wins over the terminal's own size.
        let narrowed = try Self.onTerminal(daemon, columns: 200, columnsVariable: 60, ["search", "planning"])
        #expect(narrowed.allSatisfy { $0.count <= 60 }, "\(narrowed.prefix(3))")
        // -o works before the command too, like --output.
        let hoisted = try Self.onTerminal(daemon, columns: 80, ["-o", "wide", "meetings"] + everyMeeting)
        #expect(hoisted.contains { $0.contains(title) }, "\(hoisted.prefix(3))")
        // Not a terminal: nothing is cut.
        let piped = try steno(daemon, ["meetings"] + everyMeeting)
        #expect(piped.stdout.contains(title) && !piped.stdout.contains("…"))
    }

    /// A time as the CLI prints it (then its offset): local, to the minute.
    static func minute(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static var hasPython: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") }
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
}
