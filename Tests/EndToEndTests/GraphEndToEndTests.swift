import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A Microsoft 365 calendar end to end: signed in from the CLI through the Graph double's
/// device flow, synced by a real stenod, a dropped recording linked with its attendees, and
/// an event deleted and created again with the same iCalUId relinked by revalidation.
@Suite("Microsoft Graph end to end", .blocksThreads, .serialized)
struct GraphEndToEndTests {
    /// The Graph double listens on 127.0.0.1, an internal address members' accounts may reach only when allowed.
    static let config = IngestionEndToEndTests.config + "\n[calendars]\nmember_networks = [\"127.0.0.1\"]\n"

    /// `steno accounts add graph` for alice through the double's device flow, waiting for its end.
    static func signInAlice(_ double: GraphDouble) -> [String] {
        [
            "accounts", "add", "graph", "--client-id", "steno-test-client", "--authority", double.baseURL.absoluteString,
            "--graph-url", double.graphURL.absoluteString, "--owner", "alice", "--wait",
        ]
    }

    /// Links of all recordings, as the CLI reports them.
    func links(_ daemon: TestDaemon) throws -> [LinkSummary] {
        let result = try steno(daemon, ["links", "--json", "--all"])
        #expect(result.status == 0, "\(result.stderr)")
        return (try? JSONValueDecoder().decode([LinkSummary].self, from: try JSONValue.parse(result.stdout))) ?? []
    }

    /// Waits (bounded) until the links satisfy `done`.
    func waitForLinks(_ daemon: TestDaemon, timeout: TimeInterval = 60, _ done: ([LinkSummary]) -> Bool) throws -> [LinkSummary] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [LinkSummary] = []
        while Date() < deadline {
            last = try links(daemon)
            if done(last) { return last }
            usleep(250_000)
        }
        return last
    }

    @Test func signInSyncLinkAndRelinkAfterTheEventIsRecreated() throws {
        let double = try GraphDouble()
        defer { double.shutdown() }
        double.scriptDeviceFlow(.init(pendingPolls: 2, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        let start = Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 - 2 * 86_400) / 3600).rounded(.down) * 3600)
        let review = GraphDouble.Event(
            id: "review-1", iCalUId: "ical-review@contoso.com", uid: "ical-review@contoso.com", subject: "Design review", start: start,
            end: start.addingTimeInterval(3600), organizer: .init(email: "alice@contoso.com", name: "Alice"),
            attendees: [
                .init("alice@contoso.com", name: "Alice", response: "organizer"), .init("bob@contoso.com", name: "Bob", response: "accepted"),
                .init("carol@contoso.com", name: "Carol", type: "optional", response: "tentativelyAccepted"),
            ])
        double.put(review)
        double.addSeries(id: "standup", subject: "Standup", firstStart: start.addingTimeInterval(-7 * 86_400), duration: 900, count: 3, intervalDays: 1)

        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@contoso.com"]).status == 0)

        // Sign in from the CLI; the double approves after two pending polls.
        let signIn = try steno(daemon, [
            "accounts", "add", "graph", "--client-id", "steno-test-client", "--authority", double.baseURL.absoluteString,
            "--graph-url", double.graphURL.absoluteString, "--owner", "alice", "--wait",
        ])
        #expect(signIn.status == 0, "\(signIn.stdout)\n\(signIn.stderr)")
        #expect(signIn.stdout.contains("/devicelogin") && signIn.stdout.contains("enter the code"))
        #expect(signIn.stdout.contains("alice@contoso.com") && signIn.stdout.contains(" ok "), "\(signIn.stdout)")
        #expect(double.requests.contains { $0.body.contains("grant-type%3Adevice_code") })
        let calendars = try steno(daemon, ["calendars"])
        #expect(calendars.status == 0 && calendars.stdout.contains("4"), "\(calendars.stdout)")

        // A recording made 10 minutes into the review, dropped into Alice's inbox.
        let inbox = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let recordedAt = ISO8601DateFormatter().string(from: start.addingTimeInterval(600))
        try Data("{\"recordedAt\": \"\(recordedAt)\", \"title\": \"review notes\"}".utf8)
            .write(to: URL(fileURLWithPath: inbox + "/review.json"))
        try IngestionEndToEndTests.wav(seed: 7).write(to: URL(fileURLWithPath: inbox + "/review.wav"))
        let linked = try waitForLinks(daemon) { $0.contains { $0.state == .linked } }
        let link = try #require(linked.first { $0.state == .linked }, "\(linked)")
        #expect(link.meetingTitle == "Design review")
        let meeting = try #require(link.meeting)
        let attendees = try steno(daemon, ["attendees", String(meeting)])
        #expect(attendees.status == 0 && attendees.stdout.contains("bob@contoso.com") && attendees.stdout.contains("carol@contoso.com"),
                "\(attendees.stdout)")

        // Deleted and created again under a new id with the same iCalUId: relinked.
        double.remove("review-1")
        var again = review
        again.id = "review-2"
        again.subject = "Design review (again)"
        double.put(again)
        let sync = try steno(daemon, ["sync", "--wait"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let revalidate = try steno(daemon, ["revalidate", "--wait", "--timeout", "120"])
        #expect(revalidate.status == 0, "\(revalidate.stdout)\n\(revalidate.stderr)")
        let relinked = try waitForLinks(daemon) { $0.contains { $0.state == .linked && $0.meetingTitle == "Design review (again)" } }
        #expect(relinked.contains { $0.recording == link.recording && $0.state == .linked && $0.meeting == meeting }, "\(relinked)")
        #expect(double.graphRequestsMade > 2)

        // The sign-in revoked (a password reset): the account needs sign-in, and says how.
        double.revokeRefreshTokens()
        double.expireAccessTokens()
        _ = try steno(daemon, ["sync", "--wait"])
        let refused = try steno(daemon, ["accounts"])
        #expect(refused.stdout.contains("needs-credentials") && refused.stdout.contains("steno accounts signin 1"), "\(refused.stdout)")
        let again2 = try steno(daemon, ["accounts", "signin", "1", "--wait"])
        #expect(again2.status == 0 && again2.stdout.contains("enter the code"), "\(again2.stdout)\n\(again2.stderr)")
        let healthy = try steno(daemon, ["accounts", "--json"])
        let accounts = try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(healthy.stdout))
        #expect(accounts.count == 1 && accounts.first?.health == .ok && accounts.first?.events == 4, "\(healthy.stdout)")
    }
}

extension GraphEndToEndTests {
    @Test func anOrganisationAccountReadsTheNamedUsersWithClientCredentials() throws {
        let double = try GraphDouble(confidentialClients: ["org-app": "s3cret"])
        defer { double.shutdown() }
        let start = Date().addingTimeInterval(86_400)
        for (index, user) in ["bob@contoso.com", "carol@contoso.com", "dave@contoso.com"].enumerated() {
            double.put(
                GraphDouble.Event(id: "org-\(index)", subject: "1:1 \(user)", start: start, end: start.addingTimeInterval(1800)), mailbox: user)
        }
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@contoso.com"]).status == 0)
        let secret = daemon.root + "/org.secret"
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: secret))
        let endpoints = ["--authority", double.baseURL.absoluteString, "--graph-url", double.graphURL.absoluteString]

        let commonTenant = try steno(daemon, ["accounts", "add", "graph", "--client-id", "org-app", "--client-secret-file", secret, "--owner", "alice"] + endpoints)
        #expect(commonTenant.status != 0 && commonTenant.stderr.contains("tenant"), "\(commonTenant.stderr)")

        let added = try steno(daemon, [
            "accounts", "add", "graph", "--tenant", "contoso.com", "--client-id", "org-app", "--client-secret-file", secret,
            "--users", "bob@contoso.com,carol@contoso.com", "--owner", "alice", "--wait",
        ] + endpoints)
        #expect(added.status == 0, "\(added.stdout)\n\(added.stderr)")
        let listed = try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(try steno(daemon, ["accounts", "--json"]).stdout))
        let account = try #require(listed.first)
        #expect(account.health == .ok && account.calendars == 2 && account.events == 2, "\(listed)")
        #expect(double.requests.contains { $0.uri.hasPrefix("/v1.0/users/carol@contoso.com/calendarView/delta") })
        #expect(!double.requests.contains { $0.uri.contains("dave") })
    }
}

extension GraphDouble {
    /// Graph requests (not sign-in) so far.
    var graphRequestsMade: Int { requests.filter { $0.uri.hasPrefix("/v1.0/") }.count }
}

extension GraphEndToEndTests {
    /// Meetings as the CLI lists them.
    func meetings(_ daemon: TestDaemon) throws -> [MeetingSummary] {
        let result = try steno(daemon, ["meetings", "--json", "--all"] + everyMeeting)
        #expect(result.status == 0, "\(result.stderr)")
        return (try? JSONValueDecoder().decode([MeetingSummary].self, from: try JSONValue.parse(result.stdout))) ?? []
    }

    /// After the token is granted, `GET /me` answering 503 twice is waited out (the account is
    /// created); a `/me` that keeps refusing the token leaves a failed sign-in that
    /// `steno accounts` lists with the reason and the log says at warning level.
    @Test func signInOutlastsABusyProfileAndAFailedOneStaysVisible() throws {
        let double = try GraphDouble()
        defer { double.shutdown() }
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@contoso.com"]).status == 0)
        let add = Self.signInAlice(double)

        double.scriptDeviceFlow(.init(pendingPolls: 0, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        double.inject([.init(status: 503, retryAfter: "1", code: "ServiceUnavailable"), .init(status: 503, code: "ServiceUnavailable")])
        let busy = try steno(daemon, add)
        #expect(busy.status == 0, "\(busy.stdout)\n\(busy.stderr)")
        #expect(double.requests.filter { $0.uri == "/v1.0/me" }.count == 3)
        let accounts = try steno(daemon, ["accounts", "--json"])
        #expect(accounts.stdout.contains("alice@contoso.com"), "\(accounts.stdout)")

        double.scriptDeviceFlow(.init(pendingPolls: 0, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        double.inject(Array(repeating: .init(status: 401, code: "InvalidAuthenticationToken"), count: 50))
        let refused = try steno(daemon, add)
        #expect(refused.status == 1 && refused.stderr.contains("HTTP 401"), "\(refused.stdout)\n\(refused.stderr)")
        double.clearFaults()
        let listed = try steno(daemon, ["accounts"])
        #expect(listed.status == 0)
        let line = listed.stdout.split(separator: "\n").first { $0.contains("Microsoft sign-in") }
        #expect(line?.contains("for alice failed") == true && line?.contains("HTTP 401 InvalidAuthenticationToken") == true, "\(listed.stdout)")
        let signIns = try daemon.client().call(StenoMethods.accountsSignInList, AccountSignInListParams())
        #expect(signIns.count == 1 && signIns.first?.state == .failed && signIns.first?.owner == "alice", "\(signIns)")
        let warning = daemon.log.split(separator: "\n").first { $0.contains("Microsoft sign-in failed") }
        #expect(warning?.contains("WARNING") == true && warning?.contains("HTTP 401") == true, "\(daemon.log)")
    }

    /// A member at `[members] max_calendar_accounts` cannot start another sign-in: each one
    /// polls Microsoft, and the account it ends in would be refused.
    @Test func aMemberAtTheAccountLimitStartsNoSignIn() throws {
        let double = try GraphDouble()
        defer { double.shutdown() }
        let daemon = try TestDaemon(config: Self.config + "\n[members]\nmax_calendar_accounts = 1\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@contoso.com"]).status == 0)
        let add = Self.signInAlice(double)
        double.scriptDeviceFlow(.init(pendingPolls: 0, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        let first = try steno(daemon, add)
        #expect(first.status == 0, "\(first.stdout)\n\(first.stderr)")
        let asked = double.requests.filter { $0.uri.hasSuffix("/devicecode") }.count

        let second = try steno(daemon, add)
        #expect(second.status != 0 && second.stderr.contains("alice has 1 calendar account,"), "\(second.stdout)\n\(second.stderr)")
        #expect(second.stderr.contains("[members] max_calendar_accounts = 1"), "\(second.stderr)")
        #expect(double.requests.filter { $0.uri.hasSuffix("/devicecode") }.count == asked, "a sign-in was started at Microsoft")
    }

    @Test func meetingsAreRenamedAndCreatedFromTheCLI() throws {
        let double = try GraphDouble()
        defer { double.shutdown() }
        double.scriptDeviceFlow(.init(pendingPolls: 1, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        let start = Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 - 2 * 86_400) / 3600).rounded(.down) * 3600)
        double.put(
            GraphDouble.Event(
                id: "review-1", subject: "Design review", start: start, end: start.addingTimeInterval(3600),
                organizer: .init(email: "alice@contoso.com", name: "Alice"), attendees: [.init("bob@contoso.com", name: "Bob", response: "accepted")]))
        double.addSeries(id: "standup", subject: "Standup", firstStart: start.addingTimeInterval(86_400), duration: 900, count: 3, intervalDays: 7)
        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@contoso.com"]).status == 0)
        let endpoints = ["--authority", double.baseURL.absoluteString, "--graph-url", double.graphURL.absoluteString]
        let added = try steno(daemon, ["accounts", "add", "graph", "--client-id", "steno-test-client", "--owner", "alice", "--wait"] + endpoints)
        #expect(added.status == 0, "\(added.stdout)\n\(added.stderr)")
        let review = try #require(try meetings(daemon).first { $0.title == "Design review" })

        // Signed in to read only: the rename is refused with the command that grants write access.
        let refused = try steno(daemon, ["meetings", "rename", String(review.id), "Design review (final)"])
        #expect(refused.status == 1 && refused.stderr.contains("steno accounts signin 1 --write"), "\(refused.stderr)")
        #expect(double.events().first { $0.id == "review-1" }?.subject == "Design review")

        let again = try steno(daemon, ["accounts", "signin", "1", "--write", "--wait"])
        #expect(again.status == 0, "\(again.stdout)\n\(again.stderr)")
        #expect(double.requests.contains { $0.body.contains("Calendars.ReadWrite") })

        // Renamed: Graph sees a PATCH guarded by the change key, and the catalog shows the new title at once.
        let renamed = try steno(daemon, ["meetings", "rename", String(review.id), "Design review (final)"])
        #expect(renamed.status == 0 && renamed.stdout.contains("renamed meeting \(review.id) \"Design review (final)\""), "\(renamed.stdout)\n\(renamed.stderr)")
        let patch = try #require(double.writes.first { $0.method == "PATCH" })
        #expect(patch.uri == "/v1.0/me/events/review-1" && patch.header("if-match")?.hasPrefix("W/\"ck-") == true && patch.body.contains("Design review (final)"))
        #expect(double.events().first { $0.id == "review-1" }?.subject == "Design review (final)")
        let shown = try steno(daemon, ["meetings", "show", String(review.id)])
        #expect(shown.stdout.contains("Design review (final)"), "\(shown.stdout)")

        // A standup occurrence: the series is renamed, the other occurrences arrive with the sync.
        let standup = try #require(try meetings(daemon).first { $0.title == "Standup" })
        let series = try steno(daemon, ["meetings", "rename", String(standup.id), "Daily sync"])
        #expect(series.status == 0 && series.stdout.contains("syncs now"), "\(series.stdout)\n\(series.stderr)")
        #expect(double.writes.contains { $0.method == "PATCH" && $0.uri == "/v1.0/me/events/standup" })
        #expect(try steno(daemon, ["sync", "--wait"]).status == 0)
        #expect(try meetings(daemon).filter { $0.title == "Daily sync" }.count == 3)

        // A recording no calendar knows: a meeting is created for it and linked by hand.
        let inbox = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let recordedAt = ISO8601DateFormatter().string(from: start.addingTimeInterval(-86_400 + 7200))
        try Data("{\"recordedAt\": \"\(recordedAt)\"}".utf8).write(to: URL(fileURLWithPath: inbox + "/customer-call.json"))
        try IngestionEndToEndTests.wav(seed: 11).write(to: URL(fileURLWithPath: inbox + "/customer-call.wav"))
        let unlinked = try waitForLinks(daemon) { $0.contains { $0.state == .unlinked } }
        let recording = try #require(unlinked.first { $0.state == .unlinked }?.recording, "\(unlinked)")
        let created = try steno(daemon, ["meetings", "create", "--for-recording", String(recording), "--title", "Customer call"])
        #expect(created.status == 0 && created.stdout.contains("\"Customer call\"") && created.stdout.contains("is linked to it"),
                "\(created.stdout)\n\(created.stderr)")
        let post = try #require(double.writes.first { $0.method == "POST" })
        #expect(post.uri == "/v1.0/me/events" && post.body.contains("Customer call") && post.body.contains("transactionId"))
        let link = try #require(try links(daemon).first { $0.recording == recording })
        #expect(link.state == .linked && link.method == .manual && link.meetingTitle == "Customer call", "\(link)")
        // Asked again: the recording is linked already.
        let twice = try steno(daemon, ["meetings", "create", "--for-recording", String(recording)])
        #expect(twice.status == 1 && twice.stderr.contains("already linked"), "\(twice.stderr)")
    }
}
