import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A member's account may not make the daemon request internal addresses (loopback here),
/// at add time, at sync time or through a redirect, and no error quotes what such a server
/// answered; `[calendars] member_networks` allows named hosts and networks; admins' accounts
/// are not restricted.
@Suite(
    "Member account destinations end to end", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to act as other uids"))
struct MemberDestinationsEndToEndTests {
    static let banner = "INTERNAL-SERVICE-BANNER-42"

    func asAlice(_ daemon: TestDaemon, _ arguments: [String]) throws -> CommandResult {
        try runAs(uid: otherUID, try TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath] + arguments)
    }

    func alicesAccounts(_ daemon: TestDaemon) throws -> [AccountSummary] {
        let listed = try asAlice(daemon, ["accounts", "--json"])
        try #require(listed.status == 0, "\(listed.stderr)")
        return try JSONValueDecoder().decode([AccountSummary].self, from: try JSONValue.parse(listed.stdout))
    }

    @Test func internalAddressesAreRefusedAtAddSyncAndRedirect() throws {
        try #require(canSwitchUsers, "needs root and setpriv")
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/banner", status: 200, headers: ["Content-Type": "text/plain"], body: Self.banner),
            .init(method: "GET", path: "/hop", status: 302, headers: ["Location": "http://127.0.0.1:0/banner"], body: Self.banner),
        ])
        defer { server.shutdown() }
        // "localhost" is allowed by name; 127.0.0.1 is not (a redirect there must be refused).
        let daemon = try sharedSocketDaemon(extraConfig: "[jobs]\nmax_attempts = 1\n[calendars]\nmember_networks = [\"localhost\"]\n")
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com", "--uid", String(otherUID)]).status == 0)
        #expect(try steno(daemon, ["users", "add", "ada", "--email", "ada@example.com", "--role", "admin"]).status == 0)

        // At add time: a loopback address is refused before any request.
        let direct = try asAlice(daemon, ["accounts", "add", "ics", "http://127.0.0.1:\(server.port)/banner"])
        #expect(direct.status == 5 && direct.stderr.contains("internal address"), "\(direct)")
        #expect(server.requests.isEmpty)

        // An allowed host answering something that is not a calendar: the body is not quoted.
        let banner = try asAlice(daemon, ["accounts", "add", "ics", "http://localhost:\(server.port)/banner", "--wait"])
        #expect(!banner.stdout.contains(Self.banner) && !banner.stderr.contains(Self.banner), "\(banner)")
        let bannerAccount = try #require(try alicesAccounts(daemon).first)
        #expect(bannerAccount.health == .failing && (bannerAccount.lastError ?? "").contains("text/plain"), "\(bannerAccount)")

        // A redirect from the allowed host to 127.0.0.1 is refused at sync time, and not followed.
        let hop = try asAlice(daemon, ["accounts", "add", "ics", "http://localhost:\(server.port)/hop", "--wait"])
        #expect(!hop.stdout.contains(Self.banner), "\(hop)")
        let hopAccount = try #require(try alicesAccounts(daemon).first { $0.name.hasSuffix("/hop") })
        #expect((hopAccount.lastError ?? "").contains("internal address"), "\(hopAccount)")
        #expect(server.requests.filter { $0.path == "/banner" }.count == 1, "only the allowed request reached /banner")
        let jobs = try asAlice(daemon, ["jobs", "--json"])
        #expect(jobs.status == 0 && !jobs.stdout.contains(Self.banner))

        // An admin's account may read local services as before (this one is no calendar, so its
        // first sync fails and `--wait` exits 1, but not for its address).
        let admins = try steno(daemon, ["accounts", "add", "ics", "http://127.0.0.1:\(server.port)/banner", "--owner", "ada", "--wait"])
        #expect(server.requests.filter { $0.path == "/banner" }.count == 2, "\(admins)")
        #expect(!admins.stderr.contains("internal address"), "\(admins)")
    }
}
