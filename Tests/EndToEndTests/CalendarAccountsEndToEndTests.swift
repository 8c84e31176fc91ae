import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Calendar accounts from the CLI against a real daemon: add, sync, list, remove, and who may
/// see and touch which account.
@Suite("Calendar accounts end to end", .blocksThreads, .serialized)
struct CalendarAccountsEndToEndTests {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Media/calendars/team.ics").path
    /// The sample calendar is from November 2026; a wide window keeps it mirrored whenever the tests run.
    static let config = "[calendars]\nwindow_past_days = 3650\n"

    func accounts(_ daemon: TestDaemon, as other: Bool = false) throws -> [AccountSummary] {
        let result = other
            ? try runAsOtherUser(try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "accounts", "--json"])
            : try steno(daemon, ["accounts", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(result.stdout))
    }

    @Test func anICSFileIsAddedSyncedListedAndRemoved() throws {
        let daemon = try sharedSocketDaemon(extraConfig: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)

        // Root is an admin but no Steno user: it must name the owner.
        let ownerless = try steno(daemon, ["accounts", "add", "ics", Self.sample])
        #expect(ownerless.status == 64 && ownerless.stderr.contains("--owner"), "\(ownerless.status) \(ownerless.stderr)")

        let added = try steno(daemon, ["accounts", "add", "ics", Self.sample, "--owner", "alice", "--wait"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("team.ics") && added.stdout.contains(" ok "))
        let listed = try accounts(daemon)
        #expect(listed.count == 1)
        let account = try #require(listed.first)
        #expect(account.owner == "alice" && account.health == .ok && account.calendars == 1 && account.events == 33)
        #expect(account.lastSuccessAt != nil && account.nextSyncAt != nil)

        let calendars = try steno(daemon, ["calendars"])
        #expect(calendars.status == 0 && calendars.stdout.contains("Team") && calendars.stdout.contains("33"))

        // A sync of an unchanged file changes nothing.
        let sync = try steno(daemon, ["sync", "--wait"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let rows = sync.stdout.split(separator: "\n").filter { $0.hasPrefix(String(account.id)) }
        #expect(rows.count == 1 && rows[0].contains(" ok ") && !rows[0].contains("33"))

        // Adding the same source twice is a conflict.
        let again = try steno(daemon, ["accounts", "add", "ics", Self.sample, "--owner", "alice"])
        #expect(again.status == 1 && again.stderr.contains("already mirrors"))

        let removed = try steno(daemon, ["accounts", "remove", String(account.id)])
        #expect(removed.status == 0 && removed.stdout.contains("removed account"))
        #expect(try accounts(daemon).isEmpty)
        #expect(try steno(daemon, ["accounts", "remove", String(account.id)]).status == 4)
    }

    @Test(.enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as a member"))
    func membersSeeAndChangeOnlyTheirOwnAccounts() throws {
        let daemon = try sharedSocketDaemon(extraConfig: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        #expect(try steno(daemon, ["users", "add", "bob", "--email", "bob@example.com", "--uid", String(otherUID)]).status == 0)
        let alice = try steno(daemon, ["accounts", "add", "ics", Self.sample, "--owner", "alice", "--wait"])
        #expect(alice.status == 0, "\(alice.stderr)")
        let aliceAccount = try #require(try accounts(daemon).first)
        let cli = try TestDaemon.executable(named: "steno")

        // Bob sees none of Alice's accounts and cannot remove or sync them ("not found", exit 4).
        #expect(try accounts(daemon, as: true).isEmpty)
        #expect(try runAsOtherUser(cli, ["--socket", daemon.socketPath, "accounts", "remove", String(aliceAccount.id)]).status == 4)
        #expect(try runAsOtherUser(cli, ["--socket", daemon.socketPath, "sync", String(aliceAccount.id)]).status == 4)
        let forAlice = try runAsOtherUser(cli, ["--socket", daemon.socketPath, "accounts", "add", "ics", Self.sample, "--owner", "alice"])
        #expect(forAlice.status == 5)

        // Bob may not make the daemon read a file he could not read himself.
        let secret = daemon.root + "/private.ics"
        try FileManager.default.copyItem(atPath: Self.sample, toPath: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret)
        let refused = try runAsOtherUser(cli, ["--socket", daemon.socketPath, "accounts", "add", "ics", secret])
        #expect(refused.status == 5, "\(refused.stderr)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret)
        let own = try runAsOtherUser(cli, ["--socket", daemon.socketPath, "accounts", "add", "ics", secret, "--wait"])
        #expect(own.status == 0, "\(own.stderr)")
        let bobs = try accounts(daemon, as: true)
        #expect(bobs.count == 1 && bobs.first?.owner == "bob" && bobs.first?.events == 33)
        // The admin sees both.
        #expect(try accounts(daemon).count == 2)
    }
}
