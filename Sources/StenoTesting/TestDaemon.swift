#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI

/// A real `stenod` process on a temporary socket, data folder and inbox, for end-to-end
/// tests and benchmarks. Stopped (SIGKILL if need be) and its folder removed on `shutdown()`
/// or deinit.
public final class TestDaemon: @unchecked Sendable {
    /// The temporary folder holding socket, data, inbox, config and log.
    public let root: String
    public var socketPath: String { root + "/stenod.sock" }
    public var dataDirectory: String { root + "/data" }
    /// The watched inbox: in ``root`` unless the daemon shares another's.
    public var inboxDirectory: String { sharedInbox ?? root + "/inbox" }
    private let sharedInbox: String?
    public var configPath: String { root + "/stenod.toml" }
    public var logPath: String { root + "/stenod.log" }
    /// The daemon binary.
    public let executable: String
    private let extraArguments: [String]
    private let environment: [String: String]
    /// The descriptor limit (soft and hard) the daemon runs with, set through `prlimit`.
    private let descriptorLimit: Int?
    private(set) public var process: ChildProcess?

    /// Starts a daemon and waits until it answers.
    ///
    /// - Parameters:
    ///   - config: extra TOML lines for `stenod.toml` (the socket, data folder and inbox are set by flags).
    ///   - arguments: extra command-line arguments.
    ///   - inbox: an inbox folder outside ``root``, for daemons that share one.
    ///   - descriptorLimit: RLIMIT_NOFILE for the daemon (soft and hard), as systemd's `LimitNOFILE`.
    public init(
        config: String = "", arguments: [String] = [], environment: [String: String] = [:], inbox: String? = nil,
        descriptorLimit: Int? = nil
    ) throws {
        self.descriptorLimit = descriptorLimit
        self.executable = try Self.executable(named: "stenod")
        self.root = try Self.makeTemporaryDirectory()
        self.sharedInbox = inbox
        self.extraArguments = arguments
        self.environment = environment
        // Another uid may need to reach the socket in tests (setpriv): let it traverse the folder.
        chmod(root, 0o755)
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try start()
    }

    deinit { shutdown() }

    /// The arguments the daemon is started with.
    public var arguments: [String] {
        ["--config", configPath, "--socket", socketPath, "--data-dir", dataDirectory, "--inbox", inboxDirectory]
            + extraArguments
    }

    /// Starts (or restarts) the process, with `additionalArguments` this time only, and waits
    /// up to `timeout` for it to answer.
    public func start(timeout: TimeInterval = 30, additionalArguments: [String] = []) throws {
        var environment = ProcessInfo.processInfo.environment
        for key in ["STENO_SOCKET", "STENO_DATA_DIR", "STENO_INBOX", "STENO_CONFIG", "LISTEN_FDS", "LISTEN_PID", "NOTIFY_SOCKET"] {
            environment.removeValue(forKey: key)
        }
        environment.merge(self.environment) { _, new in new }
        let log = ChildProcess.Stream.appending(toFile: logPath)
        let process: ChildProcess
        if let descriptorLimit {
            // prlimit sets the limit on itself and then execs the daemon: the pid is the daemon's.
            process = try ChildProcess(
                "/usr/bin/prlimit", ["--nofile=\(descriptorLimit):\(descriptorLimit)", executable] + arguments + additionalArguments,
                environment: environment, standardOutput: log, standardError: log)
        } else {
            process = try ChildProcess(
                executable, arguments + additionalArguments, environment: environment, standardOutput: log, standardError: log)
        }
        self.process = process
        try waitUntilAnswering(timeout: timeout)
    }

    /// Waits until `system.version` answers on the socket.
    public func waitUntilAnswering(timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let process, !process.isRunning {
                throw TestDaemonError("stenod exited with status \(process.terminationStatus) during start-up:\n\(log)")
            }
            if let client = try? StenoClient(socketPath: socketPath), (try? client.call(StenoMethods.systemVersion)) != nil {
                return
            }
            usleep(20_000)
        }
        throw TestDaemonError("stenod did not answer within \(timeout) s:\n\(log)")
    }

    /// A new client connection.
    public func client() throws -> StenoClient { try StenoClient(socketPath: socketPath) }

    /// The daemon's log so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends a signal and waits (bounded) for the process to exit; returns its status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 15) -> Int32? {
        guard let process else { return nil }
        defer { self.process = nil }
        process.send(signal)
        guard process.waitUntilExit(timeout: timeout) else {
            process.send(SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// Stops the daemon and removes its folder.
    public func shutdown() {
        stop(signal: SIGKILL, timeout: 5)
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: - Locating binaries

    /// A product of this package's build (`stenod`, `steno`), found next to the running test
    /// bundle or benchmark, or through `STENO_BIN_DIR`.
    public static func executable(named name: String) throws -> String {
        var folders: [String] = []
        if let override = ProcessInfo.processInfo.environment["STENO_BIN_DIR"] { folders.append(override) }
        if let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var url = URL(fileURLWithPath: own).deletingLastPathComponent()
            // Inside an .xctest bundle folder on some layouts.
            for _ in 0..<3 {
                folders.append(url.path)
                url = url.deletingLastPathComponent()
            }
        }
        for folder in folders {
            let candidate = folder + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TestDaemonError("cannot find the \(name) binary near \(folders.first ?? "?"); run `swift build` first or set STENO_BIN_DIR")
    }

    static func makeTemporaryDirectory() throws -> String {
        var template = Array("/tmp/steno-test-XXXXXX".utf8CString)
        guard let pointer = mkdtemp(&template) else { throw TestDaemonError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        return String(cString: pointer)
    }
}

/// A failure of the test harness itself, with the daemon's log when relevant.
public struct TestDaemonError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
