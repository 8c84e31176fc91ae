import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Credentials written into an account's URL end up in its sealed secret, and no listing,
/// log line or error shows them (nor a URL's query tokens).
@Suite("Credentials in URLs end to end", .blocksThreads, .serialized)
struct CredentialsInURLEndToEndTests {
    static let password = "s3cret-pw"
    static let queryToken = "tok-0123456789"

    func calendar() -> String {
        let start = ICalendarText.yesterday.addingTimeInterval(9 * 3600)
        return ICalendarText.calendar(ICalendarText.event(uid: "u-1", title: "Basic planning", start: start, end: start.addingTimeInterval(3600)))
    }

    @Test func aPasswordInTheURLMovesToTheSecretAndIsShownNowhere() throws {
        let basic = "Basic " + Data("ada:\(Self.password)".utf8).base64EncodedString()
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/team.ics", authorization: basic, status: 200, headers: ["Content-Type": "text/calendar"], body: calendar()),
            .init(method: "GET", path: "/team.ics", status: 401, body: "who are you"),
            .init(method: "GET", path: "/gone.ics?token=\(Self.queryToken)", status: 404, body: "nothing"),
        ])
        defer { server.shutdown() }
        let daemon = try TestDaemon(config: "[jobs]\nmax_attempts = 1\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "ada", "--email", "ada@example.com", "--role", "admin"]).status == 0)

        let url = "http://ada:\(Self.password)@127.0.0.1:\(server.port)/team.ics"
        let added = try steno(daemon, ["accounts", "add", "ics", url, "--owner", "ada", "--wait"])
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try steno(daemon, ["accounts", "--json"])
        #expect(listed.status == 0 && !listed.stdout.contains(Self.password), "\(listed.stdout)")
        let accounts = try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(listed.stdout))
        let account = try #require(accounts.first)
        #expect(account.settings["source"] == "http://127.0.0.1:\(server.port)/team.ics" && account.settings["user"] == "ada")
        #expect(account.hasCredentials && account.health == .ok && account.events == 1, "\(account)")
        // The sync authenticated with the moved password.
        #expect(server.requests.contains { $0.authorization == basic })

        // A URL's query token shows neither in the account's error nor in the job's.
        let tokened = "http://127.0.0.1:\(server.port)/gone.ics?token=\(Self.queryToken)"
        let failing = try steno(daemon, ["accounts", "add", "ics", tokened, "--owner", "ada", "--wait"])
        #expect(failing.stdout.contains("404") && !failing.stdout.contains(Self.queryToken) && !failing.stderr.contains(Self.queryToken), "\(failing)")
        let jobs = try steno(daemon, ["jobs", "--json"])
        #expect(jobs.status == 0 && jobs.stdout.contains("404") && !jobs.stdout.contains(Self.queryToken), "\(jobs.stdout)")
        let after = try steno(daemon, ["accounts", "--json"])
        #expect(after.stdout.contains("404") && !after.stdout.contains(Self.queryToken), "\(after.stdout)")
        #expect(!daemon.log.contains(Self.password) && !daemon.log.contains(Self.queryToken), "\(daemon.log)")
    }
}
