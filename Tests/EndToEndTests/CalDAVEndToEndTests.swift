import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A CalDAV account from the CLI against a real daemon and a real Radicale (127.0.0.1): added
/// with a password file, synced, listed with its health; an event added through CalDAV
/// appears after the next sync; a wrong password shows as "needs credentials" with the reason.
@Suite("CalDAV accounts end to end against Radicale", .blocksThreads, .serialized, .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
struct CalDAVEndToEndTests {
    /// A one-hour event `days` from now, in UTC.
    static func event(uid: String, summary: String, days: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let hour = (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600
        let start = Date(timeIntervalSince1970: hour + days * 86_400)
        return [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Steno//Tests//EN", "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z",
            "DTSTART:\(formatter.string(from: start))", "DTEND:\(formatter.string(from: start.addingTimeInterval(3600)))",
            "SUMMARY:\(summary)", "ATTENDEE;CN=Zoë Müller;PARTSTAT=ACCEPTED:mailto:zoe@example.com", "END:VEVENT", "END:VCALENDAR",
        ].joined(separator: "\r\n") + "\r\n"
    }

    /// Sends a CalDAV request as a calendar app would (curl, so the test needs nothing of Steno's).
    func curl(_ radicale: RadicaleServer, _ method: String, _ path: String, body: String, contentType: String) throws {
        let file = radicale.root + "/request-body"
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runCommand(
            "/usr/bin/curl",
            ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, "-u", "alice:alice-pw", "-H", "Content-Type: \(contentType)",
             "--data-binary", "@" + file, radicale.baseURL.absoluteString + path])
        let status = Int(result.stdout) ?? 0
        guard (200..<300).contains(status) else { throw RadicaleServerError("\(method) \(path) → HTTP \(status) \(result.stderr)") }
    }

    func accounts(_ daemon: TestDaemon) throws -> [AccountSummary] {
        let result = try steno(daemon, ["accounts", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(result.stdout))
    }

    @Test(.enabled(if: TestRequirement.runs(when: TestRequirement.hasExecutable("/usr/bin/curl")), "needs curl"))
    func aCalDAVAccountIsAddedSyncedAndShowsItsHealth() throws {
        let radicale = try RadicaleServer(users: ["alice": "alice-pw", "bob": "bob-pw"])
        defer { radicale.shutdown() }
        try curl(
            radicale, "MKCALENDAR", "alice/work/",
            body: """
                <?xml version="1.0" encoding="utf-8"?>
                <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>
                <D:displayname>Work</D:displayname></D:prop></D:set></C:mkcalendar>
                """,
            contentType: "application/xml; charset=utf-8")
        for (index, title) in ["Planning", "Review"].enumerated() {
            try curl(radicale, "PUT", "alice/work/e\(index).ics", body: Self.event(uid: "e\(index)", summary: title, days: Double(index + 1)),
                     contentType: "text/calendar; charset=utf-8")
        }

        // Radicale listens on 127.0.0.1, an internal address members' accounts may reach only when allowed.
        let daemon = try TestDaemon(config: "[calendars]\nmember_networks = [\"127.0.0.1\"]\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let passwordFile = daemon.root + "/alice.password"
        try "alice-pw\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let added = try steno(daemon, [
            "accounts", "add", "caldav", "--url", radicale.baseURL.absoluteString, "--user", "alice", "--password-file", passwordFile,
            "--owner", "alice", "--wait",
        ])
        #expect(added.status == 0, "\(added.stdout) \(added.stderr)")
        #expect(!added.stdout.contains("alice-pw") && !added.stderr.contains("alice-pw"))
        let account = try #require(try accounts(daemon).first)
        #expect(account.provider == .caldav && account.health == .ok && account.calendars == 1 && account.events == 2)
        #expect(account.lastSuccessAt != nil && account.nextSyncAt != nil && account.hasCredentials)

        let sync = try steno(daemon, ["sync", "--wait"])
        #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
        let calendars = try steno(daemon, ["calendars"])
        #expect(calendars.status == 0 && calendars.stdout.contains("Work"), "\(calendars.stdout)")
        let listed = try steno(daemon, ["accounts", "list"])
        #expect(listed.status == 0 && listed.stdout.contains(" ok "), "\(listed.stdout)")

        // An event added through CalDAV appears after the next sync.
        try curl(radicale, "PUT", "alice/work/added.ics", body: Self.event(uid: "added", summary: "Budget talk", days: 3),
                 contentType: "text/calendar; charset=utf-8")
        #expect(try steno(daemon, ["sync", String(account.id), "--wait"]).status == 0)
        #expect(try accounts(daemon).first?.events == 3)
        let meetings = try steno(daemon, ["meetings", "--title", "Budget"])
        #expect(meetings.status == 0 && meetings.stdout.contains("Budget talk"), "\(meetings.stdout) \(meetings.stderr)")

        // A wrong password: the account needs credentials and says why.
        let wrongFile = daemon.root + "/bob.password"
        try "not-bobs-password\n".write(toFile: wrongFile, atomically: true, encoding: .utf8)
        let wrong = try steno(daemon, [
            "accounts", "add", "caldav", "--url", radicale.baseURL.absoluteString, "--user", "bob", "--password-file", wrongFile,
            "--owner", "alice",
        ])
        #expect(wrong.status == 0, "\(wrong.stderr)")
        let bob = try #require(try accounts(daemon).first { $0.settings["user"] == "bob" })
        let failed = try steno(daemon, ["sync", String(bob.id), "--wait"])
        #expect(failed.status != 0)
        let after = try #require(try accounts(daemon).first { $0.id == bob.id })
        #expect(after.health == .needsCredentials)
        #expect(after.lastError?.contains("401") == true && after.lastError?.contains("refused the credentials") == true, "\(after.lastError ?? "")")
        let table = try steno(daemon, ["accounts", "list"])
        #expect(table.stdout.contains("needs-credentials") && table.stdout.contains("refused the credentials"), "\(table.stdout)")
        #expect(!table.stdout.contains("not-bobs-password"))
        // Alice's account is unaffected.
        #expect(try accounts(daemon).first { $0.id == account.id }?.health == .ok)
    }
}
