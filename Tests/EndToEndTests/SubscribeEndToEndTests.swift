import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `system.subscribe` and the `--wait` built on it: a client is told of each change of the jobs
/// it follows over its own connection; a member may not follow another's job; a new account
/// whose first sync fails says why at once, with the attempt and the retry time; and what
/// steno prints reaches a pipe line by line, while it still runs.
@Suite("system.subscribe and --wait", .blocksThreads, .serialized)
struct SubscribeEndToEndTests {
    static func calendar(in daemon: TestDaemon) throws -> String {
        let path = daemon.root + "/alice.ics"
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        try ICalendarText.calendar(ICalendarText.event(uid: "standup", title: "Standup", start: start, end: start.addingTimeInterval(900)))
            .write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return path
    }

    @Test func aSubscriberHearsEachChangeUntilItsJobsFinish() throws {
        let daemon = try TestDaemon()
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let client = try daemon.client()
        let added = try client.call(
            StenoMethods.accountsAdd, AccountAddParams(provider: .ics, owner: "alice", source: try Self.calendar(in: daemon)))
        let job = try #require(added.job)
        var heard: [Job] = []
        client.onNotification = { notification in
            guard notification.method == StenoMethods.jobsChangedNotification, let params = notification.params else { return }
            if let job = try? JSONValueDecoder().decode(Job.self, from: params) { heard.append(job) }
        }
        let result = try client.call(StenoMethods.systemSubscribe, SubscribeParams(jobs: [job], timeoutSeconds: 300))
        #expect(result.reason == "finished" && result.jobs.map(\.state) == [.succeeded], "\(result)")
        #expect(heard.first?.id == job, "the job as it was when followed comes first: \(heard)")
        #expect(heard.last?.state == .succeeded, "\(heard.map(\.state))")
        // The connection still serves calls afterwards.
        #expect(try client.call(StenoMethods.jobsGet, JobIDParams(id: job)).state == .succeeded)
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as a member"))
    func aMemberMayNotFollowAnothersJob() throws {
        let daemon = try sharedSocketDaemon()
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        #expect(try steno(daemon, ["users", "add", "bob", "--email", "bob@example.com", "--uid", String(otherUID)]).status == 0)
        let added = try daemon.client().call(
            StenoMethods.accountsAdd, AccountAddParams(provider: .ics, owner: "alice", source: try Self.calendar(in: daemon)))
        let job = try #require(added.job)
        let cli = try TestDaemon.executable(named: "steno")
        let refused = try runAsOtherUser(cli, ["--socket", daemon.socketPath, "call", "system.subscribe", "{\"jobs\": [\(job)]}"])
        #expect(refused.status == 4, "\(refused.stdout) \(refused.stderr)")
    }

    @Test func aNewAccountsFirstSyncFailsFastAndSaysWhyAndWhenItIsTriedAgain() throws {
        let daemon = try TestDaemon(config: "[calendars]\nmember_networks = [\"127.0.0.1\"]\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        // Nothing listens on port 1: the fetch fails at once, and the job is retried later.
        let added = try runCommand(
            try TestDaemon.executable(named: "steno"),
            ["--socket", daemon.socketPath, "accounts", "add", "ics", "http://127.0.0.1:1/team.ics", "--owner", "alice", "--wait"],
            timeout: 120)
        #expect(added.status == 1 && !added.timedOut, "\(added)")
        #expect(added.stderr.contains("attempt 1 of 5 failed") && added.stderr.contains("next attempt at"), "\(added.stderr)")
        #expect(added.stderr.contains("the first sync failed") && added.stderr.contains("the daemon tries again at"), "\(added.stderr)")
        #expect(added.stderr.contains("127.0.0.1:1"), "the reason names the source: \(added.stderr)")
    }

    @Test func outputReachesAPipeWhileStenoStillRuns() throws {
        let double = try GraphDouble()
        defer { double.shutdown() }
        // The sign-in stays pending for a while: the code must be readable before it ends.
        double.scriptDeviceFlow(.init(pendingPolls: 8, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        let daemon = try TestDaemon(config: "[calendars]\nmember_networks = [\"127.0.0.1\"]\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@contoso.com"]).status == 0)

        let process = try ChildProcess(
            TestDaemon.executable(named: "steno"),
            [
                "--socket", daemon.socketPath, "accounts", "add", "graph", "--client-id", "steno-test-client", "--authority",
                double.baseURL.absoluteString, "--graph-url", double.graphURL.absoluteString, "--owner", "alice", "--wait",
            ], standardOutput: .pipe)
        let output = try #require(process.standardOutput)
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        while !text.contains("enter the code"), Date() < deadline {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains("enter the code"), "\(text)")
        #expect(process.isRunning, "the sign-in code reached the pipe only when steno ended")
    }
}
