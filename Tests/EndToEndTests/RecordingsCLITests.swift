#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno ingest … --wait` and `steno recordings …` against a running daemon, as a person
/// types them (issue 3, CLI).
@Suite("steno ingest and steno recordings", .blocksThreads, .serialized)
struct RecordingsCLITests {
    /// The watcher waits an hour before reading a file, so the CLI is what ingests them.
    static let config = """
        [watcher]
        settle_seconds = 3600
        """

    /// A daemon with alice's three recordings (one unreadable) and bob's one, ingested by
    /// `steno ingest --wait` on a terminal; returns the daemon and what the command printed.
    static func ingestedDaemon() throws -> (TestDaemon, CommandResult) {
        let daemon = try TestDaemon(config: config)
        let client = try daemon.client()
        for name in ["alice", "bob"] { _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: name)) }
        let alice = daemon.inboxDirectory + "/alice", bob = daemon.inboxDirectory + "/bob"
        for folder in [alice, bob] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try IngestionEndToEndTests.wav(seed: 1).write(to: URL(fileURLWithPath: alice + "/2026-03-04 standup.wav"))
        try IngestionEndToEndTests.wav(seed: 2).write(to: URL(fileURLWithPath: alice + "/2026-05-06 review.wav"))
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEjunk".utf8).write(to: URL(fileURLWithPath: alice + "/broken.wav"))
        try IngestionEndToEndTests.wav(seed: 3).write(to: URL(fileURLWithPath: bob + "/2026-03-10 sync.wav"))
        // On a pseudo-terminal (script(1)), so the progress bar is drawn.
        let steno = try TestDaemon.executable(named: "steno")
        let command = [steno, "--socket", daemon.socketPath, "ingest", alice, bob, "--wait", "--timeout", "60"]
            .map { "'" + $0 + "'" }.joined(separator: " ")
        return (daemon, try onTerminal(command, timeout: 90))
    }

    /// Runs a shell command on a pseudo-terminal through script(1); standard input is empty
    /// (else script forwards the test's own and may never end) and the output goes to a file,
    /// so the wait is bounded: SIGKILL after `timeout`.
    static func onTerminal(_ command: String, timeout: TimeInterval) throws -> CommandResult {
        let output = NSTemporaryDirectory() + "steno-tty-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try ChildProcess(
            "/usr/bin/script", ["-qec", command, "/dev/null"], standardOutput: .appending(toFile: output), standardError: .standardOutput)
        if !process.waitUntilExit(timeout: timeout) { process.stop(signal: SIGKILL) }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return CommandResult(status: process.terminationStatus, stdout: text, stderr: "")
    }

    /// The recordings `steno recordings ARGS --output json` lists.
    static func listed(_ daemon: TestDaemon, _ arguments: [String]) throws -> [Recording] {
        let result = try steno(daemon, ["recordings"] + arguments + ["--output", "json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONValueDecoder().decode([Recording].self, from: try JSONValue.parse(result.stdout))
    }

    @Test func ingestWaitDrawsProgressThenSummarisesAndRecordingsFilter() throws {
        let (daemon, ingest) = try Self.ingestedDaemon()
        defer { daemon.shutdown() }
        // broken.wav failed, so the command does too, naming it after the summary.
        #expect(ingest.status == 1, "\(ingest.stdout)\(ingest.stderr)")
        #expect(ingest.stdout.contains("1 file(s) failed: ") && ingest.stdout.contains("broken.wav ("), "\(ingest.stdout)")
        #expect(ingest.stdout.contains("ingesting ["), "a progress bar on the terminal: \(ingest.stdout)")
        #expect(ingest.stdout.contains("4/4"))
        #expect(ingest.stdout.contains("1 failed, 3 ready"), "the summary counts outcomes: \(ingest.stdout)")
        #expect(ingest.stdout.contains("broken.wav"))

        let all = try Self.listed(daemon, [])
        #expect(all.count == 4)
        #expect(try Self.listed(daemon, ["--owner", "bob"]).compactMap { $0.paths.first?.path } == ["bob/2026-03-10 sync.wav"])
        #expect(try Self.listed(daemon, ["--status", "ready"]).count == 3)
        let failed = try Self.listed(daemon, ["--status", "failed"])
        #expect(failed.compactMap { $0.paths.first?.path } == ["alice/broken.wav"])
        let march = try Self.listed(daemon, ["--from", "2026-03-01", "--to", "2026-04-01"])
        #expect(Set(march.compactMap { $0.paths.first?.path }) == ["alice/2026-03-04 standup.wav", "bob/2026-03-10 sync.wav"])
        #expect(march.allSatisfy { $0.recordedAtSource == .fileName })

        // --failed lists the reason in the table.
        let failedTable = try steno(daemon, ["recordings", "--failed"])
        #expect(failedTable.status == 0)
        #expect(failedTable.stdout.contains("REASON"))
        let reason = try #require(failed.first?.failureReason)
        #expect(failedTable.stdout.contains(String(reason.prefix(30))), "\(failedTable.stdout)")

        // show: every field a person asks about.
        let standup = try #require(all.first { $0.paths.first?.path == "alice/2026-03-04 standup.wav" })
        let show = try steno(daemon, ["recordings", "show", String(standup.id)])
        #expect(show.status == 0)
        for expected in ["ready", "alice", "file-name", "wav", "8000 Hz", "1 ch", "alice/2026-03-04 standup.wav", try #require(standup.contentHash)] {
            #expect(show.stdout.contains(expected), "show lacks \(expected): \(show.stdout)")
        }
        // The absolute path and the link's meeting (no calendar here: unlinked).
        let absolute = daemon.inboxDirectory + "/alice/2026-03-04 standup.wav"
        #expect(show.stdout.contains(absolute) && show.stdout.contains("meeting") && show.stdout.contains("unlinked"), "\(show.stdout)")
        // A failed recording has no link to explain; its show still answers, with the reason.
        let brokenShow = try steno(daemon, ["recordings", "show", String(try #require(failed.first?.id))])
        #expect(brokenShow.status == 0 && brokenShow.stdout.contains(daemon.inboxDirectory + "/alice/broken.wav"), "\(brokenShow)")
        let missing = try steno(daemon, ["recordings", "show", "999999"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("999999"))

        // open: the path for a script, or the player run with it.
        let opened = try steno(daemon, ["recordings", "open", String(standup.id)])
        #expect(opened.status == 0 && opened.stdout == absolute + "\n", "\(opened)")
        let stenoPath = try TestDaemon.executable(named: "steno")
        let played = try runCommand(
            stenoPath, ["--socket", daemon.socketPath, "recordings", "open", String(standup.id)], environment: ["STENO_PLAYER": "echo"])
        #expect(played.status == 0 && played.stdout == absolute + "\n", "\(played)")
        let refused = try runCommand(
            stenoPath, ["--socket", daemon.socketPath, "recordings", "open", String(standup.id)], environment: ["STENO_PLAYER": "false"])
        #expect(refused.status == 1)
    }

    @Test func ingestWithoutWaitQueuesAndSaysHowToFollow() throws {
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "carol"))
        let folder = daemon.inboxDirectory + "/carol"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try IngestionEndToEndTests.wav(seed: 9).write(to: URL(fileURLWithPath: folder + "/one.wav"))
        let result = try steno(daemon, ["ingest", folder + "/one.wav"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("queued 1 file(s)"))
        let recordings = try IngestionEndToEndTests.waitForRecordings(daemon, timeout: 30) { $0.count == 1 }
        #expect(recordings.map(\.status) == [.ready])
        let outside = try steno(daemon, ["ingest", "/etc/hostname"])
        #expect(outside.status != 0, "a path outside the inbox is refused: \(outside.stdout)")
    }
}
