import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno accounts update`: a CalDAV account whose password changed at the server (Radicale)
/// needs credentials, names the command that renews them, and after it syncs again with the
/// same meetings and links; an ICS account follows its file to a new place the same way;
/// members may renew only their own accounts.
@Suite("steno accounts update", .blocksThreads, .serialized)
struct AccountsUpdateCLITests {
    /// Yesterday 10:00–11:00 UTC.
    static let review = ICalendarText.yesterday.addingTimeInterval(10 * 3600)

    static func reviewCalendar() -> String {
        ICalendarText.calendar(
            ICalendarText.event(
                uid: "review", title: "Design review", start: review, end: review.addingTimeInterval(3600), organizer: "alice@example.com",
                attendees: ["PARTSTAT=ACCEPTED;CN=Bob:mailto:bob@example.com"]))
    }

    /// Drops a recording made during the review into alice's inbox and waits for its link.
    static func linkedRecording(_ daemon: TestDaemon) throws -> LinkSummary {
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let recordedAt = ISO8601DateFormatter().string(from: review.addingTimeInterval(5 * 60))
        try Data(#"{"recordedAt": "\#(recordedAt)"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/review-notes.json"))
        try IngestionEndToEndTests.wav(seed: 8).write(to: URL(fileURLWithPath: folder + "/review-notes.wav"))
        let client = try daemon.client()
        let links = try poll(timeout: 180, { try client.call(StenoMethods.linksList, LinkListParams(limit: 10)).items }) {
            $0.first?.state == .linked
        }
        let link = try #require(links.first, "no link")
        try #require(link.state == .linked && link.meetingTitle == "Design review", "\(link)")
        return link
    }

    static func account(_ daemon: TestDaemon, _ id: Int64) throws -> AccountSummary {
        try #require(try daemon.client().call(StenoMethods.accountsList, AccountListParams()).items.first { $0.id == id })
    }

    static func links(_ daemon: TestDaemon) throws -> [LinkSummary] {
        try daemon.client().call(StenoMethods.linksList, LinkListParams(limit: 10)).items
    }

    @Test(.enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
    func aChangedCalDAVPasswordIsRenewedInPlaceKeepingMeetingsAndLinks() throws {
        let radicale = try RadicaleServer(users: ["alice": "old-pw"]) { storage in
            let folder = storage + "/collection-root/alice/work"
            try RadicaleServer.writeCalendarProps(folder: folder, displayName: "Work")
            try Self.reviewCalendar().write(toFile: folder + "/review.ics", atomically: true, encoding: .utf8)
        }
        defer { radicale.shutdown() }
        let daemon = try TestDaemon(config: "[calendars]\nmember_networks = [\"127.0.0.1\"]\n[watcher]\nsettle_seconds = 0.2\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let oldPassword = daemon.root + "/old.password"
        try "old-pw\n".write(toFile: oldPassword, atomically: true, encoding: .utf8)
        let added = try steno(daemon, [
            "accounts", "add", "caldav", "--url", radicale.baseURL.absoluteString, "--user", "alice", "--password-file", oldPassword,
            "--owner", "alice", "--wait",
        ])
        try #require(added.status == 0, "\(added.stdout) \(added.stderr)")
        let accountID = try #require(try daemon.client().call(StenoMethods.accountsList, AccountListParams()).items.first?.id)
        let link = try Self.linkedRecording(daemon)

        // The password changes at the server: the next sync needs credentials and says how to give them.
        try "alice:new-pw\n".write(toFile: radicale.root + "/users", atomically: true, encoding: .utf8)
        let refused = try steno(daemon, ["sync", String(accountID), "--wait"])
        #expect(refused.status != 0)
        let stale = try Self.account(daemon, accountID)
        #expect(stale.health == .needsCredentials)
        let fix = "steno accounts update \(accountID) --password-file"
        #expect(stale.lastError?.contains(fix) == true, "\(stale.lastError ?? "")")

        // Renewed in place: it syncs again, with the same calendar, meeting and link.
        let newPassword = daemon.root + "/new.password"
        try "new-pw\n".write(toFile: newPassword, atomically: true, encoding: .utf8)
        let updated = try steno(daemon, ["accounts", "update", String(accountID), "--password-file", newPassword, "--wait"])
        #expect(updated.status == 0, "\(updated.stdout) \(updated.stderr)")
        #expect(!updated.stdout.contains("new-pw") && !updated.stderr.contains("new-pw"))
        let renewed = try Self.account(daemon, accountID)
        #expect(renewed.health == .ok && renewed.events == 1 && renewed.calendars == 1, "\(renewed)")
        let after = try #require(try Self.links(daemon).first { $0.recording == link.recording })
        #expect(after.state == .linked && after.meeting == link.meeting, "\(after)")
        #expect(try steno(daemon, ["sync", String(accountID), "--wait"]).status == 0)
        #expect(try daemon.client().call(StenoMethods.meetingsGet, MeetingIDParams(id: try #require(link.meeting))).meeting.title == "Design review")
    }

    @Test func anICSAccountFollowsItsFileToANewPlaceKeepingTheLink() throws {
        let daemon = try TestDaemon(config: "[watcher]\nsettle_seconds = 0.2\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let original = daemon.root + "/alice.ics"
        try Self.reviewCalendar().write(toFile: original, atomically: true, encoding: .utf8)
        try #require(try steno(daemon, ["accounts", "add", "ics", original, "--owner", "alice", "--wait"]).status == 0)
        let accountID = try #require(try daemon.client().call(StenoMethods.accountsList, AccountListParams()).items.first?.id)
        let link = try Self.linkedRecording(daemon)

        let moved = daemon.root + "/calendars/alice.ics"
        try FileManager.default.createDirectory(atPath: daemon.root + "/calendars", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: original, toPath: moved)
        let nothing = try steno(daemon, ["accounts", "update", String(accountID)])
        #expect(nothing.status == 64 && nothing.stderr.contains("nothing to update"), "\(nothing.stderr)")
        let updated = try steno(daemon, ["accounts", "update", String(accountID), "--source", moved, "--wait"])
        #expect(updated.status == 0, "\(updated.stdout) \(updated.stderr)")
        let account = try Self.account(daemon, accountID)
        #expect(account.name == moved && account.health == .ok && account.events == 1, "\(account)")
        let calendars = try daemon.client().call(StenoMethods.calendarsList, CalendarListParams()).items
        #expect(calendars.map(\.remoteID) == [moved], "\(calendars)")
        let after = try #require(try Self.links(daemon).first { $0.recording == link.recording })
        #expect(after.state == .linked && after.meeting == link.meeting, "\(after)")
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as a member"))
    func membersRenewOnlyTheirOwnAccounts() throws {
        let daemon = try sharedSocketDaemon()
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        #expect(try steno(daemon, ["users", "add", "bob", "--email", "bob@example.com", "--uid", String(otherUID)]).status == 0)
        let calendar = daemon.root + "/alice.ics"
        try Self.reviewCalendar().write(toFile: calendar, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: calendar)
        try #require(try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice"]).status == 0)
        let accountID = try #require(try daemon.client().call(StenoMethods.accountsList, AccountListParams()).items.first?.id)
        let cli = try TestDaemon.executable(named: "steno")
        let refused = try runAsOtherUser(cli, ["--socket", daemon.socketPath, "accounts", "update", String(accountID), "--source", calendar])
        #expect(refused.status == 4, "\(refused.stdout) \(refused.stderr)")
        #expect(try steno(daemon, ["accounts", "update", String(accountID), "--source", calendar]).status == 0)
    }
}
