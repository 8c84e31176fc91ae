import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// File-descriptor exhaustion: idle connections of unmapped uids are closed soon, the soft
/// descriptor limit is raised at start-up, and running short of descriptors is logged and
/// recovered from.
@Suite("Connection limits of a real daemon", .blocksThreads, .serialized)
struct ConnectionLimitsEndToEndTests {
    /// Whether a check that needs root and setpriv must run: always under CI.
    static var mayAct: Bool { TestRequirement.runs(when: canSwitchUsers) }

    @Test(.enabled(if: mayAct, "needs root and setpriv to connect as another uid"))
    func idleConnectionOfAnUnmappedUIDIsClosedSoon() throws {
        let daemon = try sharedSocketDaemon(extraConfig: "[rpc]\nunmapped_idle_timeout_seconds = 1\n")
        let script = """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"system.version"}\\n')
            f = s.makefile('rb')
            sys.stdout.write(f.readline().decode())
            s.settimeout(15)
            try:
                rest = f.read()
                print("closed" if rest == b"" else "data")
            except socket.timeout:
                print("open")
            """
        let result = try runAsOtherUser("/usr/bin/env", ["python3", "-c", script, daemon.socketPath])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("\"result\"") == true, "\(result.stdout)")
        #expect(lines.last == "closed", "an idle unmapped connection stays open: \(result.stdout)")
        // A mapped user's connection (root is an admin) is not held to the short timeout.
        let admin = try RawSocketClient(path: daemon.socketPath)
        #expect(try admin.call(#"{"jsonrpc":"2.0","id":1,"method":"system.status"}"#)?["result"] != nil)
        #expect(try !admin.waitUntilClosed(timeout: 2))
    }

    @Test(.enabled(if: mayAct, "needs root and setpriv to connect as another uid"))
    func aUIDHammeringItsConnectionCapLeavesAFewLogLinesNotOnePerRefusal() throws {
        let daemon = try sharedSocketDaemon(extraConfig: "[rpc]\nmax_connections_per_uid = 2\n")
        let script = """
            import socket, sys
            def connect(ask):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                s.settimeout(10)
                # A refused connection is answered without asking, and closed at once.
                if ask: s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"system.version"}\\n')
                return s, s.makefile('rb').readline()
            held = [connect(True) for _ in range(2)]
            refused = sum(1 for _ in range(60) if b'"error"' in connect(False)[1])
            print(refused)
            """
        let result = try runAsOtherUser("/usr/bin/env", ["python3", "-c", script, daemon.socketPath])
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "60", "each connection beyond the cap is refused with an answer: \(result.stdout) \(result.stderr)")
        // The refusals are in the log, but folded: not sixty lines.
        let lines = try poll(timeout: 10, { daemon.log.split(separator: "\n").filter { $0.contains("refused a connection: uid") } }) { !$0.isEmpty }
        #expect((1...3).contains(lines.count), "\(lines.count) log lines for 60 refusals")
    }

    @Test func runningOutOfDescriptorsIsLoggedAndRecoveredFrom() throws {
        let daemon = try TestDaemon(config: "[rpc]\nmax_connections_per_uid = 1000\n")
        #expect(daemon.log.contains("file descriptor limit"), "the start-up log names the descriptor limit")
        let pid = try #require(daemon.process?.processIdentifier)
        // Room for about 24 connections beside what the catalog, the watcher and the event loops hold.
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        let limit = open + 24
        let limited = try runCommand("/usr/bin/prlimit", ["--pid", String(pid), "--nofile=\(limit):\(limit)"])
        try #require(limited.status == 0, "\(limited.stderr)")
        var clients: [RawSocketClient] = []
        for _ in 0..<80 {
            let client = try RawSocketClient(path: daemon.socketPath)
            try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"system.version"}"#)
            clients.append(client)
        }
        let logged = try poll(timeout: 15, { daemon.log }) {
            $0.contains("out of file descriptors") && $0.contains("file descriptors are open")
        }
        #expect(logged.contains("file descriptors are open"), "no warning as descriptors ran short")
        #expect(logged.contains("cannot accept connections: out of file descriptors"), "failed accepts are not logged")
        clients.removeAll()
        // With the descriptors back, a new client is answered again (accepts resume after the backoff).
        let answered = try poll(timeout: 15, {
            (try? RawSocketClient(path: daemon.socketPath).call(#"{"jsonrpc":"2.0","id":2,"method":"system.version"}"#, timeout: 3)) ?? nil
        }) { $0?["result"] != nil }
        #expect(answered?["result"] != nil)
    }
}
