import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `--wait` commands exit non-zero when anything they waited for failed, and say which; an
/// impossible date range is a usage error.
@Suite("steno exit codes tell the truth", .blocksThreads, .serialized)
struct CLIExitCodeTests {
    /// Jobs fail once and are dead: no test waits for retries.
    static let config = """
        [jobs]
        max_attempts = 1
        [watcher]
        settle_seconds = 3600
        """

    @Test func ingestWaitWithAFailedFileExits1NamingIt() throws {
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try IngestionEndToEndTests.wav(seed: 4).write(to: URL(fileURLWithPath: folder + "/2026-03-04 standup.wav"))
        try Data("%PDF-1.4 not a recording".utf8).write(to: URL(fileURLWithPath: folder + "/slides.pdf"))
        let result = try steno(daemon, ["ingest", folder, "--wait", "--timeout", "60"])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("slides.pdf"), "the failure names the file: \(result.stderr)")
        #expect(!result.stderr.contains("standup.wav"), "\(result.stderr)")
        #expect(result.stdout.contains("1 failed, 1 ready"), "\(result.stdout)")

        // The same with JSON: standard output stays one document, the exit code still says it.
        let again = try steno(daemon, ["ingest", folder + "/slides.pdf", "--wait", "--timeout", "60", "--json"])
        #expect(again.status == 1, "\(again.stdout) \(again.stderr)")
        #expect((try? JSONValue.parse(again.stdout)) != nil, "\(again.stdout)")

        let good = try steno(daemon, ["ingest", folder + "/2026-03-04 standup.wav", "--wait", "--timeout", "60"])
        #expect(good.status == 0, "\(good.stdout) \(good.stderr)")
    }

    @Test func accountAddWaitEndingDeadExits1() throws {
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "alice"))
        let source = daemon.root + "/broken.ics"
        try "this is not a calendar\n".write(toFile: source, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", source, "--owner", "alice", "--wait"])
        #expect(added.status == 1, "\(added.stdout) \(added.stderr)")
        #expect(added.stderr.contains("first sync") && added.stderr.contains("dead"), "\(added.stderr)")
        let account = try #require(try daemon.client().call(StenoMethods.accountsList, AccountListParams()).items.first)

        let sync = try steno(daemon, ["sync", String(account.id), "--wait", "--timeout", "60"])
        #expect(sync.status == 1, "\(sync.stdout) \(sync.stderr)")
        #expect(sync.stderr.contains("account \(account.id)"), "the failure names the account: \(sync.stderr)")
    }

    @Test func fromAfterToIsAUsageError() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        for command in [["recordings"], ["meetings"], ["recordings", "list"], ["meetings", "list"]] {
            let result = try steno(daemon, command + ["--from", "2026-02-01", "--to", "2026-01-01"])
            #expect(result.status == 64, "\(command): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("--from") && result.stderr.contains("--to"), "\(result.stderr)")
        }
        #expect(try steno(daemon, ["recordings", "--from", "2026-01-01", "--to", "2026-02-01"]).status == 0)
    }

    /// Filters that no row can satisfy together were resolved silently (one of them won).
    @Test func filtersThatExcludeEachOtherAreAUsageError() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        for command in [
            ["recordings", "--failed", "--status", "ready"], ["links", "--orphaned", "--ambiguous"],
            ["links", "--state", "linked", "--pending"], ["links", "list", "--ambiguous", "--state", "unlinked"],
        ] {
            let result = try steno(daemon, command)
            #expect(result.status == 64, "\(command): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("exclude each other"), "\(command): \(result.stderr)")
        }
        for command in [["recordings", "--failed", "--status", "failed"], ["links", "--orphaned", "--state", "orphaned"]] {
            let result = try steno(daemon, command)
            #expect(result.status == 0, "\(command): \(result.stdout) \(result.stderr)")
        }
    }
}
