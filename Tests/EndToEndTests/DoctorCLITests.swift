import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno doctor` against a real daemon: clean (exit 0) when all is well; each thing broken
/// on purpose — the secrets key readable by others, a member without an inbox folder, an inbox
/// the team cannot pass through, an account whose source is gone with its dead sync, no daemon
/// at all — is named with its fix and a non-zero exit.
@Suite("steno doctor", .blocksThreads, .serialized)
struct DoctorCLITests {
    /// A daemon with alice's ICS calendar mirrored, as `steno demo` leaves it.
    static func healthyDaemon(config: String = "") throws -> (TestDaemon, calendar: String) {
        let daemon = try TestDaemon(config: config)
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let calendar = daemon.root + "/alice.ics"
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        try ICalendarText.calendar(ICalendarText.event(uid: "standup", title: "Standup", start: start, end: start.addingTimeInterval(900)))
            .write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        return (daemon, calendar)
    }

    static func report(_ daemon: TestDaemon) throws -> (status: Int32, report: DoctorReport, text: String) {
        let json = try steno(daemon, ["doctor", "--json"])
        let report = try JSONValueDecoder().decode(DoctorReport.self, from: try JSONValue.parse(json.stdout))
        let text = try steno(daemon, ["doctor"])
        #expect(text.status == json.status)
        return (json.status, report, text.stdout + text.stderr)
    }

    @Test func aHealthyDaemonIsClean() throws {
        let (daemon, _) = try Self.healthyDaemon()
        defer { daemon.shutdown() }
        let (status, report, text) = try Self.report(daemon)
        #expect(status == 0, "\(text)")
        #expect(report.problems.isEmpty, "\(report.problems)")
        let names = Set(report.checks.map(\.name))
        for name in ["daemon", "you", "catalog", "secret key", "socket", "disk space", "inbox", "dead jobs", "accounts"] {
            #expect(names.contains(name), "no \(name) check in \(names.sorted())")
        }
        #expect(text.contains("no problems found"), "\(text)")
    }

    @Test func aSecretKeyOthersMayReadIsAProblemWithItsFix() throws {
        let (daemon, _) = try Self.healthyDaemon()
        defer { daemon.shutdown() }
        let key = daemon.dataDirectory + "/secret.key"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        let (status, report, text) = try Self.report(daemon)
        #expect(status == 1)
        let problem = try #require(report.problems.first { $0.name == "secret key" }, "\(report.checks)")
        #expect(problem.detail.contains("0644") && problem.fix?.contains("chmod 600 \(key)") == true, "\(problem)")
        #expect(text.contains("fix: chmod 600 \(key)"), "\(text)")
    }

    @Test func aMemberWithoutAnInboxFolderAndAnInboxTheTeamCannotPassAreProblems() throws {
        let (daemon, _) = try Self.healthyDaemon(config: "socket_group = \"\(otherUID)\"\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "bob", "--email", "bob@example.com", "--uid", String(otherUID)]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: daemon.inboxDirectory)
        let (status, report, _) = try Self.report(daemon)
        #expect(status == 1)
        let folder = try #require(report.problems.first { $0.name == "inbox of bob" }, "\(report.checks)")
        #expect(folder.fix?.contains("install -d -o \(otherUID)") == true && folder.fix?.contains(daemon.inboxDirectory + "/bob") == true)
        let inbox = try #require(report.problems.first { $0.name == "inbox" }, "\(report.checks)")
        #expect(inbox.fix == "chgrp \(otherUID) \(daemon.inboxDirectory) && chmod 0710 \(daemon.inboxDirectory)", "\(inbox)")

        // Fixed as told: clean again.
        try FileManager.default.setAttributes([.posixPermissions: 0o710, .groupOwnerAccountID: Int(otherUID)], ofItemAtPath: daemon.inboxDirectory)
        let bobs = daemon.inboxDirectory + "/bob"
        try FileManager.default.createDirectory(atPath: bobs, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o2750, .ownerAccountID: Int(otherUID)], ofItemAtPath: bobs)
        let (fixed, after, text) = try Self.report(daemon)
        #expect(fixed == 0 && after.problems.isEmpty, "\(text)")
    }

    @Test func anAccountWhoseSourceIsGoneAndItsDeadSyncAreProblems() throws {
        let (daemon, calendar) = try Self.healthyDaemon(config: "[jobs]\nmax_attempts = 1\n")
        defer { daemon.shutdown() }
        try FileManager.default.removeItem(atPath: calendar)
        #expect(try steno(daemon, ["sync", "--wait"]).status != 0)
        let (status, report, text) = try Self.report(daemon)
        #expect(status == 1)
        let account = try #require(report.problems.first { $0.name.hasPrefix("account ") }, "\(report.checks)")
        #expect(account.detail.contains("failing") && account.fix?.contains("steno sync") == true, "\(account)")
        let dead = try #require(report.problems.first { $0.name == "dead jobs" }, "\(report.checks)")
        #expect(dead.detail.contains("calendar.sync") && dead.fix?.contains("steno jobs retry") == true, "\(dead)")
        #expect(text.contains("2 problem(s)"), "\(text)")

        // The source back and synced again: the dead sync is history, and said to be.
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        try ICalendarText.calendar(ICalendarText.event(uid: "standup", title: "Standup", start: start, end: start.addingTimeInterval(900)))
            .write(toFile: calendar, atomically: true, encoding: .utf8)
        let synced = try steno(daemon, ["sync", "--wait"])
        try #require(synced.status == 0, "\(synced)")
        let (_, healed, _) = try Self.report(daemon)
        let history = try #require(healed.checks.first { $0.name == "dead jobs" })
        #expect(!healed.problems.contains { $0.name == "dead jobs" })
        #expect(history.detail.contains("none open: 1 gave up in the last 7 days and each was run again since"), "\(history)")
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as a member"))
    func aMemberSeesTheirOwnAccountsOnly() throws {
        let (daemon, calendar) = try Self.healthyDaemon(config: "socket_group = \"\(otherUID)\"\n[jobs]\nmax_attempts = 1\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "bob", "--email", "bob@example.com", "--uid", String(otherUID)]).status == 0)
        try FileManager.default.removeItem(atPath: calendar)
        _ = try steno(daemon, ["sync", "--wait"])
        let member = try runAsOtherUser(try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "doctor"])
        #expect(member.status == 0, "alice's broken account is not bob's problem: \(member.stdout) \(member.stderr)")
        #expect(member.stdout.contains("need an admin") && !member.stdout.contains("alice.ics"), "\(member.stdout)")
    }

    @Test func noDaemonIsAProblemNamingWhereItLooked() throws {
        let result = try runCommand(try TestDaemon.executable(named: "steno"), ["--socket", "/tmp/steno-nowhere/stenod.sock", "doctor"])
        #expect(result.status == 3)
        #expect(result.stdout.contains("/tmp/steno-nowhere/stenod.sock") && result.stdout.contains("fix: start stenod"), "\(result.stdout)")
    }
}
