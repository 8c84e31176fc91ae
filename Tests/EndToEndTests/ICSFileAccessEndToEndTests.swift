import Glibc
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A member's ICS account reads only what the member could read, at every sync: the root
/// daemon must not become a way around file permissions.
@Suite(
    "ICS file access end to end", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as other uids"))
struct ICSFileAccessEndToEndTests {
    /// Alice's private calendar, 0600 and hers, with an event only she may see.
    func privateCalendar(in daemon: TestDaemon, owner: UInt32) throws -> String {
        let path = daemon.root + "/alice-private.ics"
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        let text = ICalendarText.calendar(
            ICalendarText.event(uid: "merger-1", title: "Secret merger talks", start: start, end: start.addingTimeInterval(3600)))
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try #require(chown(path, owner, owner) == 0 && chmod(path, 0o600) == 0)
        return path
    }

    func bobsCalendar(in daemon: TestDaemon, at path: String) throws {
        let start = ICalendarText.yesterday.addingTimeInterval(11 * 3600)
        let text = ICalendarText.calendar(
            ICalendarText.event(uid: "bob-1", title: "Bob planning", start: start, end: start.addingTimeInterval(3600)))
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try #require(chown(path, otherUID, otherUID) == 0 && chmod(path, 0o644) == 0)
    }

    func asBob(_ daemon: TestDaemon, _ arguments: [String]) throws -> CommandResult {
        try runAs(uid: otherUID, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath] + arguments)
    }

    func bobsAccount(_ daemon: TestDaemon) throws -> AccountSummary {
        let listed = try asBob(daemon, ["accounts", "--json"])
        try #require(listed.status == 0, "\(listed.stderr)")
        let accounts = try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(listed.stdout))
        return try #require(accounts.first)
    }

    func bobFinds(_ daemon: TestDaemon, _ text: String) throws -> [SearchHit] {
        let result = try asBob(daemon, ["search", text, "--json"])
        try #require(result.status == 0, "\(result.stderr)")
        return try JSONValueDecoder().decode([SearchHit].self, from: try JSONValue.parse(result.stdout))
    }

    @Test func aFileSwappedForALinkToAnotherUsersPrivateCalendarIsRefusedAtSync() throws {
        try #require(canSwitchUsers, "needs root and setpriv")
        // One attempt: a refused sync is final at once instead of retried with backoff.
        let daemon = try sharedSocketDaemon(extraConfig: "[jobs]\nmax_attempts = 1\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com", "--uid", String(secondUID)]).status == 0)
        #expect(try steno(daemon, ["users", "add", "bob", "--email", "bob@example.com", "--uid", String(otherUID)]).status == 0)
        let secret = try privateCalendar(in: daemon, owner: secondUID)
        let bobs = daemon.root + "/bob.ics"
        try bobsCalendar(in: daemon, at: bobs)

        let added = try asBob(daemon, ["accounts", "add", "ics", bobs, "--wait"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try bobFinds(daemon, "planning").count == 1)

        // Bob swaps his file for a link to Alice's private calendar, then syncs.
        try FileManager.default.removeItem(atPath: bobs)
        try FileManager.default.createSymbolicLink(atPath: bobs, withDestinationPath: secret)
        let account = try bobsAccount(daemon)
        let synced = try asBob(daemon, ["sync", String(account.id), "--wait"])
        #expect(synced.status != 0, "\(synced.stdout)")
        let after = try bobsAccount(daemon)
        #expect(after.health == .failing && (after.lastError ?? "").contains("bob.ics"), "\(after)")
        #expect(try bobFinds(daemon, "merger").isEmpty)

        // A folder account meets the same rule for every file in it.
        let folder = daemon.root + "/bob-folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try #require(chown(folder, otherUID, otherUID) == 0)
        try bobsCalendar(in: daemon, at: folder + "/mine.ics")
        let folderAdded = try asBob(daemon, ["accounts", "add", "ics", folder, "--wait"])
        #expect(folderAdded.status == 0, "\(folderAdded.stderr)")
        try FileManager.default.createSymbolicLink(atPath: folder + "/alice.ics", withDestinationPath: secret)
        let folderAccount = try #require(
            try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(try asBob(daemon, ["accounts", "--json"]).stdout))
                .first { $0.name.hasSuffix("bob-folder") })
        let folderSync = try asBob(daemon, ["sync", String(folderAccount.id), "--wait"])
        #expect(folderSync.status != 0, "\(folderSync.stdout)")
        #expect(try bobFinds(daemon, "merger").isEmpty)
    }
}
