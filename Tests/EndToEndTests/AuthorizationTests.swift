import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// Identity from SO_PEERCRED: unknown uids, members and admins, connecting as another uid.
@Suite("Authorization by peer credentials", .blocksThreads, .serialized, .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to connect as another uid"))
struct AuthorizationTests {
    let daemon: TestDaemon

    init() throws {
        daemon = try sharedSocketDaemon()
    }

    /// Sends raw frames as `otherUID` and returns the reply lines.
    func rawAsOtherUser(_ lines: [String]) throws -> [JSONValue] {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            f = s.makefile('rwb')
            for line in sys.argv[2:]:
                f.write(line.encode() + b'\\n'); f.flush()
                sys.stdout.write(f.readline().decode())
            """
        let result = try runAsOtherUser("/usr/bin/env", ["python3", "-c", script, daemon.socketPath] + lines)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    @Test func unknownUIDMayOnlyAskForTheVersionAndTheSchema() throws {
        let replies = try rawAsOtherUser([
            #"{"jsonrpc":"2.0","id":1,"method":"system.version"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"rpc.discover"}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"system.status"}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"users.list"}"#,
        ])
        #expect(replies.count == 4)
        #expect(replies[0]["result"] != nil)
        #expect(replies[1]["result"]?["openrpc"] != nil)
        for reply in replies[2...] {
            #expect(reply["error"]?["code"] == .int(-32001))
            #expect(reply["error"]?["data"]?["uid"] == .int(Int64(otherUID)))
            #expect(reply["error"]?["message"]?.stringValue?.contains("steno users add") == true)
        }
    }

    @Test func memberMayNotAdministerButAdminMay() throws {
        let admin = try daemon.client()
        _ = try admin.call(StenoMethods.usersAdd, UserAddParams(name: "nobody", emails: ["nobody@example.com"], uids: [otherUID]))
        let asMember = try rawAsOtherUser([
            #"{"jsonrpc":"2.0","id":1,"method":"system.status"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"users.list"}"#,
        ])
        #expect(asMember[0]["result"]?["caller"]?["user"] == .string("nobody"))
        #expect(asMember[0]["result"]?["caller"]?["role"] == .string("member"))
        #expect(asMember[1]["error"]?["code"] == .int(-32002))

        _ = try admin.call(StenoMethods.usersUpdate, UserUpdateParams(user: "nobody", role: .admin))
        let asAdmin = try rawAsOtherUser([#"{"jsonrpc":"2.0","id":1,"method":"users.list"}"#])
        #expect(asAdmin[0]["result"]?["items"]?.arrayValue?.count == 1, "a role change applies at once")

        _ = try admin.call(StenoMethods.usersRemove, UserReferenceParams(user: "nobody@example.com"))
        let removed = try rawAsOtherUser([#"{"jsonrpc":"2.0","id":1,"method":"system.status"}"#])
        #expect(removed[0]["error"]?["code"] == .int(-32001), "a removed user is unknown at once")
    }

    @Test func cliExitCodesForUnknownAndMemberCallers() throws {
        let steno = try TestDaemon.executable(named: "steno")
        let unknown = try runAsOtherUser(steno, ["--socket", daemon.socketPath, "status"])
        #expect(unknown.status == 5)
        #expect(unknown.stderr.contains("uid \(otherUID) is not a Steno user"))
        _ = try daemon.client().call(StenoMethods.usersAdd, UserAddParams(name: "member", uids: [otherUID]))
        let member = try runAsOtherUser(steno, ["--socket", daemon.socketPath, "users", "list"])
        #expect(member.status == 5)
        let status = try runAsOtherUser(steno, ["--socket", daemon.socketPath, "status", "--json"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("\"member\""))
        // How many recordings, meetings and users the catalog holds is not a member's to know.
        let counts = try JSONValue.parse(status.stdout)["counts"]
        #expect(counts?.objectValue?.isEmpty == true, "a member sees catalog-wide counts: \(status.stdout)")
        #expect(try !daemon.client().call(StenoMethods.systemStatus).counts.isEmpty, "an admin still does")
    }
}
