import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Members see only the jobs of their own accounts, inbox folder and recordings; admins see all.
@Suite(
    "Job visibility end to end", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as other uids"))
struct JobVisibilityEndToEndTests {
    /// What `steno jobs --json` shows of a job (its payload and result are JSON values there).
    struct ListedJob: Decodable {
        var id: Int64
        var kind: String
        var state: JobState
    }

    func jobs(_ daemon: TestDaemon, as uid: UInt32?) throws -> [ListedJob] {
        let arguments = ["jobs", "--json", "--limit", "1000"]
        let result = try uid.map { try runAs(uid: $0, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath] + arguments) }
            ?? steno(daemon, arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONValueDecoder().decode([ListedJob].self, from: try JSONValue.parse(result.stdout))
    }

    @Test func aMemberSeesOnlyTheirOwnJobs() throws {
        try #require(canSwitchUsers, "needs root and setpriv")
        let daemon = try sharedSocketDaemon(extraConfig: "[watcher]\nsettle_seconds = 0.2\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com", "--uid", String(otherUID)]).status == 0)
        #expect(try steno(daemon, ["users", "add", "bob", "--email", "bob@example.com", "--uid", String(secondUID)]).status == 0)
        let calendar = daemon.root + "/alice.ics"
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        try ICalendarText.calendar(ICalendarText.event(uid: "a-1", title: "Alice sync", start: start, end: start.addingTimeInterval(3600)))
            .write(toFile: calendar, atomically: true, encoding: .utf8)
        #expect(try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"]).status == 0)
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try IngestionEndToEndTests.wav(seed: 3).write(to: URL(fileURLWithPath: folder + "/secret-plan.wav"))

        let settled = try poll(timeout: 30, { try jobs(daemon, as: nil) }) { all in
            all.contains { $0.kind == "ingest" && $0.state == .succeeded } && !all.contains { $0.state == .queued || $0.state == .running }
        }
        let ingest = try #require(settled.first { $0.kind == "ingest" }, "\(settled)")
        let sync = try #require(settled.first { $0.kind == "calendar.sync" })

        // Bob sees none of it, and cannot read one by id.
        let bobs = try jobs(daemon, as: secondUID)
        #expect(bobs.isEmpty, "\(bobs)")
        for job in settled {
            let shown = try runAs(uid: secondUID, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "jobs", "show", String(job.id)])
            #expect(shown.status == 4 && !shown.stdout.contains("secret-plan"), "job \(job.id) \(job.kind): \(shown.status)")
        }
        // Alice sees her sync and her file's ingest, but not the catalog-wide linking work.
        let alices = Set(try jobs(daemon, as: otherUID).map(\.id))
        #expect(alices.contains(ingest.id) && alices.contains(sync.id), "\(alices)")
        #expect(!settled.contains { alices.contains($0.id) && ($0.kind == "links.after-sync" || $0.kind == "links.revalidate") })
        #expect(try jobs(daemon, as: nil).count == settled.count)
    }
}
