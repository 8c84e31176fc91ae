import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// The steno CLI against a real daemon: tables, JSON, paging and exit codes.
@Suite("steno CLI", .blocksThreads, .serialized)
struct CLITests {
    @Test func daemonNotRunningExitsWith3AndSaysWhereItLooked() throws {
        let result = try runCommand(try TestDaemon.executable(named: "steno"), ["--socket", "/tmp/steno-nowhere/stenod.sock", "status"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("/tmp/steno-nowhere/stenod.sock"))
        #expect(result.stderr.contains("start it with `stenod`"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func usageErrorsExitWith64() throws {
        let result = try runCommand(try TestDaemon.executable(named: "steno"), ["users", "add"])
        #expect(result.status == 64)
        let badRole = try runCommand(try TestDaemon.executable(named: "steno"), ["users", "add", "x", "--role", "king"])
        #expect(badRole.status == 64)
    }

    @Test func usersLifecycleWithTablesAndJSON() throws {
        let daemon = try TestDaemon()
        let added = try steno(daemon, ["users", "add", "alice", "--email", "Alice@Example.com", "--uid", "1000", "--role", "admin", "--display-name", "Alice Martin"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("alice@example.com"))
        let duplicate = try steno(daemon, ["users", "add", "alice2", "--email", "alice@example.com"])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("belongs to user \"alice\""))

        let updated = try steno(daemon, ["users", "update", "alice", "--add-email", "a.martin@example.com", "--add-uid", "1001", "--json"])
        #expect(updated.status == 0, "\(updated.stderr)")
        let user = try JSONValueDecoder().decode(User.self, from: try JSONValue.parse(updated.stdout))
        #expect(user.emails == ["alice@example.com", "a.martin@example.com"])
        #expect(user.uids == [1000, 1001])

        let table = try steno(daemon, ["users"])
        #expect(table.stdout.hasPrefix("ID"))
        #expect(table.stdout.contains("Alice Martin"))
        let csv = try steno(daemon, ["users", "list", "--output", "csv"])
        #expect(csv.stdout.contains("\"alice@example.com,a.martin@example.com\""))

        let missing = try steno(daemon, ["users", "remove", "zed"])
        #expect(missing.status == 4)
        #expect(missing.stderr.contains("no user \"zed\""))
        let removed = try steno(daemon, ["users", "remove", "1001@x"])
        #expect(removed.status == 4)
        #expect(try steno(daemon, ["users", "remove", "alice"]).status == 0)
    }

    @Test func listsFollowCursorsWithLimitAndAll() throws {
        let daemon = try TestDaemon()
        let client = try daemon.client()
        for index in 0..<250 {
            _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: String(format: "user%03d", index)))
        }
        let limited = try steno(daemon, ["users", "list", "--limit", "120", "--json"])
        #expect(try JSONValue.parse(limited.stdout).arrayValue?.count == 120)
        let all = try steno(daemon, ["users", "list", "--all", "--json"])
        let names = try JSONValue.parse(all.stdout).arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names.count == 250)
        #expect(Set(names).count == 250)
        let firstPage = try client.call(StenoMethods.usersList, PageParams(limit: 100))
        #expect(firstPage.items.count == 100)
        #expect(firstPage.nextCursor != nil)
        let bad = try steno(daemon, ["call", "users.list", #"{"cursor":"bogus"}"#])
        #expect(bad.status == 64)
    }

    @Test func statusShowsTheCatalog() throws {
        let daemon = try TestDaemon()
        let result = try steno(daemon, ["status"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("schema"))
        #expect(result.stdout.contains(daemon.dataDirectory + "/catalog.sqlite"))
        let json = try JSONValue.parse(try steno(daemon, ["status", "--json"]).stdout)
        #expect(json["queueDepth"] == .int(0))
        #expect(json["counts"]?["recordings"] == .int(0))
    }

    @Test func environmentSocketIsUsed() throws {
        let daemon = try TestDaemon()
        let result = try runCommand(try TestDaemon.executable(named: "steno"), ["status", "--json"], environment: ["STENO_SOCKET": daemon.socketPath])
        #expect(result.status == 0, "\(result.stderr)")
    }
}
