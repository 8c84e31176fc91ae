import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno ingest --wait` on old recordings follows their linking too: while the link job
/// fetches the calendar history around them it says so on standard error, and the command
/// ends once they are linked. The ICS source holds its history answer until the test has seen
/// that line, so the line is seen while the fetch is under way, not after.
@Suite("ingest --wait follows the linking of old recordings", .blocksThreads, .serialized)
struct IngestWaitLinkingEndToEndTests {
    static let config = """
        [watcher]
        settle_seconds = 3600
        [calendars]
        sync_interval_minutes = 600
        member_networks = ["127.0.0.1"]
        """

    /// Three recordings two years back, an hour apart, on a whole minute.
    static func starts(now: Date) -> [Date] {
        let base = ((now.timeIntervalSince1970 - 730 * 86_400) / 60).rounded(.down) * 60
        return (0..<3).map { Date(timeIntervalSince1970: base + Double($0) * 3600) }
    }

    @Test func ingestWaitShowsTheHistoryFetchAndEndsWithTheRecordingsLinked() throws {
        let starts = Self.starts(now: Date())
        let events = starts.enumerated().flatMap { index, start in
            ICalendarText.event(
                uid: "old-\(index)", title: "Old meeting \(index)", start: start.addingTimeInterval(-120), end: start.addingTimeInterval(1800),
                organizer: "alice@example.com", attendees: [])
        }
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        let release = daemon.root + "/release-history"
        let calendar = ICalendarText.calendar(events)
        // The account's first sync is answered at once; the history fetch waits for `release`.
        let ics = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/old.ics", times: 1, status: 200, headers: ["Content-Type": "text/calendar"], body: calendar),
            .init(method: "GET", path: "/old.ics", status: 200, headers: ["Content-Type": "text/calendar"], body: calendar,
                  holdUntilFileExists: release),
        ])
        defer {
            _ = FileManager.default.createFile(atPath: release, contents: nil)
            ics.shutdown()
        }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let added = try steno(daemon, ["accounts", "add", "ics", ics.baseURL.absoluteString + "old.ics", "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")

        let folder = daemon.inboxDirectory + "/alice/old"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let formatter = ISO8601DateFormatter()
        for (index, start) in starts.enumerated() {
            let name = "\(folder)/old-\(index)"
            try Data(#"{"recordedAt": "\#(formatter.string(from: start))"}"#.utf8).write(to: URL(fileURLWithPath: name + ".json"))
            try IngestionEndToEndTests.wav(seed: index).write(to: URL(fileURLWithPath: name + ".wav"))
        }

        // steno's output goes to files the test reads while the command runs.
        let stdoutPath = daemon.root + "/ingest.stdout", stderrPath = daemon.root + "/ingest.stderr"
        for path in [stdoutPath, stderrPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let process = try ChildProcess(
            TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "ingest", folder, "--wait", "--timeout", "600"],
            standardOutput: .appending(toFile: stdoutPath), standardError: .appending(toFile: stderrPath))
        func stderrText() -> String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

        // The signal: the history fetch is under way and steno says so (or steno ended first).
        let seen = try poll(timeout: 600, { (stderrText(), process.isRunning) }, until: {
            $0.0.contains("fetching calendar history") || !$0.1
        })
        #expect(seen.0.contains("(link): fetching calendar history: 0 of "), "steno's stderr: \(seen.0)")
        #expect(process.isRunning, "steno ingest --wait ended before the recordings were linked")
        _ = FileManager.default.createFile(atPath: release, contents: nil)

        let ended = try poll(timeout: 600, { process.isRunning }, until: { !$0 })
        try #require(!ended, "steno ingest --wait did not end")
        process.waitUntilExit()
        let stdout = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "\(stdout) \(stderrText())")
        #expect(stdout.contains(" link job(s) done"), "\(stdout)")

        // Linked when the command ended, not later.
        let linked = try runCommand(
            "/usr/bin/sqlite3", ["-readonly", daemon.dataDirectory + "/catalog.sqlite", "SELECT count(*) FROM links WHERE state = 'linked'"])
        #expect(linked.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3", "\(linked)")
    }

    /// Two `steno ingest --wait` at once, whose files the daemon may ingest and link in the same
    /// batches: each summary counts how its own recordings ended, from the link jobs' results.
    @Test func ingestWaitCountsHowItsOwnRecordingsEnded() throws {
        // Whole hours three days back, inside the mirrored window.
        let base = ((Date().timeIntervalSince1970 - 3 * 86_400) / 3600).rounded(.down) * 3600
        func at(hours: Double) -> Date { Date(timeIntervalSince1970: base + hours * 3600) }
        let invited = ["PARTSTAT=ACCEPTED:mailto:alice@example.com"]
        func meeting(_ uid: String, _ title: String, hours: Double) -> [String] {
            ICalendarText.event(
                uid: uid, title: title, start: at(hours: hours).addingTimeInterval(-120), end: at(hours: hours).addingTimeInterval(1800),
                organizer: "carol@example.com", attendees: invited)
        }
        // Mine: a meeting, two parallel twins (ambiguous), and nothing at all. Theirs: two meetings.
        let calendar = ICalendarText.calendar(
            meeting("standup", "Standup", hours: 0) + meeting("twin-a", "Interview A", hours: 2) + meeting("twin-b", "Interview B", hours: 2)
                + meeting("review", "Review", hours: 6) + meeting("retro", "Retro", hours: 8))
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        let ics = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/team.ics", status: 200, headers: ["Content-Type": "text/calendar"], body: calendar)
        ])
        defer { ics.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let added = try steno(daemon, ["accounts", "add", "ics", ics.baseURL.absoluteString + "team.ics", "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")

        let formatter = ISO8601DateFormatter()
        func drop(_ folder: String, _ hours: [Double], seed: Int) throws -> String {
            let path = daemon.inboxDirectory + "/alice/" + folder
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for (index, hour) in hours.enumerated() {
                let name = "\(path)/\(folder)-\(index)"
                try Data(#"{"recordedAt": "\#(formatter.string(from: at(hours: hour)))"}"#.utf8).write(to: URL(fileURLWithPath: name + ".json"))
                try IngestionEndToEndTests.wav(seed: seed + index).write(to: URL(fileURLWithPath: name + ".wav"))
            }
            return path
        }
        let mine = try drop("mine", [0, 2, 4], seed: 10)
        let theirs = try drop("theirs", [6, 8], seed: 20)

        // Theirs runs while mine does; its output goes to a file read at the end.
        let theirsOutput = daemon.root + "/theirs.stdout"
        _ = FileManager.default.createFile(atPath: theirsOutput, contents: nil)
        let other = try ChildProcess(
            TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "ingest", theirs, "--wait", "--timeout", "600"],
            standardOutput: .appending(toFile: theirsOutput))
        let ingested = try runCommand(
            TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "ingest", mine, "--wait", "--timeout", "600"], timeout: 660)
        let ended = try poll(timeout: 660, { other.isRunning }, until: { !$0 })
        try #require(!ended, "the other steno ingest --wait did not end")
        other.waitUntilExit()
        let theirsText = (try? String(contentsOfFile: theirsOutput, encoding: .utf8)) ?? ""

        #expect(ingested.status == 0, "\(ingested.stdout) \(ingested.stderr)")
        #expect(ingested.stdout.contains("3 recording(s): 1 linked, 1 unlinked, 1 ambiguous"), "\(ingested.stdout)")
        #expect(other.terminationStatus == 0, "\(theirsText)")
        #expect(theirsText.contains("2 recording(s): 2 linked"), "\(theirsText)")
    }
}
