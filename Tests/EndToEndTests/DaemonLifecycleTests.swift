#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoTesting
import StenoTestTraits
import Testing

/// Start-up, shutdown, crash recovery and socket ownership of a real stenod.
@Suite("Daemon lifecycle", .blocksThreads, .serialized)
struct DaemonLifecycleTests {
    @Test func socketIsCreatedWithMode0660() throws {
        let daemon = try TestDaemon()
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
    }

    /// The socket appears at its path with its mode already set: a member connecting while
    /// the daemon starts is never refused by the daemon's own umask (0700). Before, it was
    /// bound at the path and given its mode a moment later.
    @Test func theSocketNeverAppearsWithoutItsMode() throws {
        let daemon = try TestDaemon()
        let path = daemon.socketPath
        for _ in 0..<5 {
            #expect(daemon.stop(signal: SIGTERM) == 0)
            let watching = SocketModeWatch(path: path)
            try daemon.start()
            #expect(watching.firstModeSeen() == 0o660)
        }
    }

    @Test func sigtermShutsDownGracefullyAndRemovesTheSocket() throws {
        let daemon = try TestDaemon()
        let status = daemon.stop(signal: SIGTERM)
        #expect(status == 0, "log:\n\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(daemon.log.contains("stopped"))
    }

    @Test func killNineThenRestartReplacesTheStaleSocketAndKeepsTheData() throws {
        let daemon = try TestDaemon()
        let client = try daemon.client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "carol", emails: ["carol@example.com"]))
        daemon.stop(signal: SIGKILL)
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath), "kill -9 leaves the socket file behind")
        try daemon.start()
        let users = try daemon.client().call(StenoMethods.usersList, PageParams())
        #expect(users.items.map(\.name) == ["carol"])
        #expect(daemon.log.contains("catalog ready"))
    }

    @Test func secondDaemonOnTheSameSocketExitsWithAClearMessage() throws {
        let daemon = try TestDaemon()
        let second = try runCommand(
            daemon.executable, ["--socket", daemon.socketPath, "--data-dir", daemon.root + "/other"], timeout: 30)
        #expect(second.status != 0)
        #expect(second.stderr.contains("already listening on \(daemon.socketPath)"), "stderr: \(second.stderr)")
        // The first one is unharmed.
        #expect((try? daemon.client().call(StenoMethods.systemVersion)) != nil)
    }

    @Test func badConfigurationIsRefusedWithItsReason() throws {
        let root = NSTemporaryDirectory() + "steno-badconfig-\(getpid())"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "sockett = \"/tmp/x.sock\"\n".write(toFile: root + "/stenod.toml", atomically: true, encoding: .utf8)
        let result = try runCommand(try TestDaemon.executable(named: "stenod"), ["--config", root + "/stenod.toml"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("unknown setting \"sockett\""))
    }

    @Test func socketActivationServesOnTheInheritedDescriptor() throws {
        let root = try TestDaemonFolder()
        let socket = root.path + "/activated.sock"
        // Python binds and listens, then execs stenod with the socket as fd 3 and LISTEN_PID
        // set to its own pid, which exec keeps: exactly what systemd does.
        let script = """
            import os, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); s.listen(16)
            os.dup2(s.fileno(), 3)
            os.set_inheritable(3, True)
            env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
            os.execve(sys.argv[2], [sys.argv[2], "--socket", sys.argv[1], "--data-dir", sys.argv[3]], env)
            """
        let process = try ChildProcess(
            "/usr/bin/env", ["python3", "-c", script, socket, TestDaemon.executable(named: "stenod"), root.path + "/data"],
            standardOutput: .inherit)
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var answered = false
        for _ in 0..<300 where !answered {
            if let client = try? StenoClient(socketPath: socket), (try? client.call(StenoMethods.systemStatus)) != nil {
                answered = true
            } else {
                usleep(50_000)
            }
        }
        #expect(answered)
    }

    @Test func backupWhileServingWritesAConsistentCopy() throws {
        let daemon = try TestDaemon()
        let client = try daemon.client()
        for index in 0..<20 {
            _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "user\(index)", emails: ["u\(index)@example.com"]))
        }
        let target = daemon.root + "/backup.sqlite"
        let result = try steno(daemon, ["admin", "backup", target, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let check = try runCommand(
            "/usr/bin/env",
            ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*) from users').fetchone()[0]); print(c.execute('pragma integrity_check').fetchone()[0])", target])
        #expect(check.stdout.split(separator: "\n") == ["20", "ok"], "\(check.stderr)")
        let again = try steno(daemon, ["admin", "backup", target])
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists already"))
    }
}

/// A temporary folder removed when the value goes away.
final class TestDaemonFolder {
    let path: String
    init() throws {
        var template = Array("/tmp/steno-folder-XXXXXX".utf8CString)
        guard let pointer = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed") }
        path = String(cString: pointer)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Watches, on a thread of its own, for a file to appear at `path` and keeps the permission
/// bits it had when first seen.
private final class SocketModeWatch: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var mode: mode_t?

    init(path: String) {
        let thread = Thread { [self] in
            let deadline = Date().addingTimeInterval(60)
            var info = stat()
            while Date() < deadline {
                if lstat(path, &info) == 0 {
                    lock.withLock { mode = info.st_mode & 0o777 }
                    break
                }
            }
            done.signal()
        }
        thread.start()
    }

    /// The mode first seen; nil when the file did not appear within a minute.
    func firstModeSeen() -> mode_t? {
        done.wait()
        return lock.withLock { mode }
    }
}
