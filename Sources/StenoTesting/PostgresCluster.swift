#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A private PostgreSQL cluster for tests and benchmarks: `initdb` and `postgres` in a temporary
/// folder, listening on 127.0.0.1 (a free port) and on a Unix socket in that folder, with
/// trusted local logins for the superuser `steno`. Nothing of the machine's own PostgreSQL is
/// used but its binaries.
///
/// PostgreSQL refuses to run as root: under root the cluster belongs to an unprivileged system
/// user (``clusterUser``, created when missing) and its commands run through `setpriv`.
///
/// Tests share one cluster per process (``shared()``) and take a fresh database each
/// (``createDatabase(prefix:)``); the cluster stops when the process exits.
public final class PostgresCluster: Sendable {
    /// The temporary folder: `data/` (the cluster), `run/` (its socket), `log`.
    public let root: String
    public let port: Int
    /// The superuser every test connects as (trusted, no password).
    public let user = "steno"
    /// Where `initdb`, `postgres` and `createdb` are.
    public let binDirectory: String
    private let counter = Mutex(0)
    /// The running server process, nil while stopped.
    private let server = Mutex<ChildProcess?>(nil)

    /// The system user that owns clusters started by root.
    public static let clusterUser = "steno-pgtest"

    public var dataDirectory: String { root + "/data" }
    public var socketDirectory: String { root + "/run" }
    public var logPath: String { root + "/log" }

    /// The folder of the PostgreSQL server binaries (Debian keeps them off PATH), if installed.
    public static var installedBinDirectory: String? {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions where TestRequirement.hasExecutable("/usr/lib/postgresql/\(version)/bin/initdb") {
            return "/usr/lib/postgresql/\(version)/bin"
        }
        for directory in ["/usr/local/pgsql/bin", "/usr/local/bin", "/usr/bin"]
        where TestRequirement.hasExecutable(directory + "/initdb") && TestRequirement.hasExecutable(directory + "/postgres") {
            return directory
        }
        return nil
    }

    /// Whether a cluster can be started here.
    public static var isInstalled: Bool { installedBinDirectory != nil }

    private static let sharedCluster = Mutex<Task<PostgresCluster, any Error>?>(nil)

    /// The process's cluster, started on first use and stopped at exit.
    ///
    /// - Throws: ``PostgresClusterError`` when PostgreSQL is not installed or does not start.
    public static func shared() async throws -> PostgresCluster {
        let start = sharedCluster.withLock { stored in
            if let stored { return stored }
            let start = Task {
                let cluster = try await offload { () throws(PostgresClusterError) in try PostgresCluster() }
                StopAtExit.register(cluster)
                return cluster
            }
            stored = start
            return start
        }
        return try await start.value
    }

    /// A cluster of the caller's own, for a test that stops and restarts its server (never the
    /// shared one, which other tests use at the same time). The caller calls ``shutdown()``.
    public static func startPrivate() async throws -> PostgresCluster {
        try await offload { () throws(PostgresClusterError) in try PostgresCluster() }
    }

    /// ``stop()``, off the shared pool: the server is down when it returns.
    public func stopServer() async throws {
        try await Self.offload { () throws(PostgresClusterError) in self.stop() }
    }

    /// ``restart()``, off the shared pool: the server accepts connections when it returns.
    public func restartServer() async throws {
        try await Self.offload { () throws(PostgresClusterError) in try self.restart() }
    }

    /// Where blocking work runs: one at a time, on a thread of its own.
    private static let work = DispatchQueue(label: "steno.postgres-cluster")

    /// Runs blocking work (waiting for `initdb`, the server's start, `createdb`) off the shared
    /// pool: with two cores, two tests blocked in such calls would leave no thread for the rest
    /// of the run. One call at a time, so a parallel run does not hold a hundred threads waiting
    /// on a hundred `createdb` at once.
    static func offload<Value: Sendable>(_ work: @escaping @Sendable () throws(PostgresClusterError) -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Self.work.async {
                do throws(PostgresClusterError) {
                    continuation.resume(returning: try work())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Starts a new cluster (most tests want ``shared()`` instead).
    public init() throws(PostgresClusterError) {
        guard let binDirectory = Self.installedBinDirectory else {
            throw PostgresClusterError("PostgreSQL is not installed: `apt-get install postgresql` (the CI script .ci/run does)")
        }
        self.binDirectory = binDirectory
        var template = Array("/tmp/steno-pg-XXXXXX".utf8CString)
        guard let pointer = mkdtemp(&template) else { throw PostgresClusterError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        root = String(cString: pointer)
        // The cluster's user must pass through the folder (mkdtemp makes it 0700).
        chmod(root, 0o711)
        let data = root + "/data", socket = root + "/run", log = root + "/log"
        do {
            try Self.ensureClusterUser()
            for folder in [data, socket] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Self.giveToClusterUser(folder)
            }
            guard FileManager.default.createFile(atPath: log, contents: nil) else { throw PostgresClusterError("cannot create \(log)") }
            try Self.giveToClusterUser(log)
            try Self.check(
                Self.run(
                    binDirectory + "/initdb",
                    ["-D", data, "-U", "steno", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"]),
                "initdb")
        } catch let error as PostgresClusterError {
            throw error
        } catch {
            throw PostgresClusterError("preparing \(root) failed: \(error)")
        }
        // A free port can be taken by someone else before the server binds it: try a few.
        var lastFailure: PostgresClusterError?
        for _ in 0..<5 {
            do throws(PostgresClusterError) {
                let candidate: Int
                do { candidate = try FreePort.onLoopback() } catch { throw PostgresClusterError("no free port: \(error)") }
                let process = try Self.launch(binDirectory: binDirectory, data: data, socket: socket, log: log, port: candidate)
                port = candidate
                server.withLock { $0 = process }
                return
            } catch {
                lastFailure = error
            }
        }
        let serverLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw PostgresClusterError("the cluster in \(root) did not start: \(lastFailure?.description ?? "")\n\(serverLog)")
    }

    /// Starts the server of `data` on `port` in the foreground, as a child of this process, and
    /// waits until its log says it accepts connections. (`pg_ctl start` would daemonize it, and
    /// the server would be no child of this process to stop.)
    private static func launch(binDirectory: String, data: String, socket: String, log: String, port: Int) throws(PostgresClusterError) -> ChildProcess {
        let options = [
            "-D", data, "-p", "\(port)", "-k", socket, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
            // A parallel run holds a pool of up to 10 connections for each of a hundred tests and
            // daemons at once; at 300, refused clients waited out the 60 s connect timeout.
            "-c", "full_page_writes=off", "-c", "max_connections=1000",
        ]
        let (executable, arguments) = command(binDirectory + "/postgres", options)
        let logStart = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        let output = ChildProcess.Stream.appending(toFile: log)
        let process: ChildProcess
        do { process = try ChildProcess(executable, arguments, standardOutput: output, standardError: output) } catch {
            throw PostgresClusterError("postgres could not start: \(error)")
        }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let fresh = text.utf8.count > Int(logStart) ? String(decoding: text.utf8.dropFirst(Int(logStart)), as: UTF8.self) : ""
            if fresh.contains("database system is ready to accept connections") { return process }
            if !process.isRunning {
                throw PostgresClusterError("postgres exited with status \(process.terminationStatus) during start-up:\n\(fresh)")
            }
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        throw PostgresClusterError("postgres did not become ready within 60 s")
    }

    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Creates an empty database with a name of its own and returns the name.
    public func createDatabase(prefix: String = "steno_test") async throws -> String {
        let number = counter.withLock { value in
            value += 1
            return value
        }
        let name = "\(prefix)_\(getpid())_\(number)"
        let command = binDirectory + "/createdb", arguments = ["-h", socketDirectory, "-p", "\(port)", "-U", user, name]
        try await Self.offload { () throws(PostgresClusterError) in try Self.check(Self.run(command, arguments), "createdb \(name)") }
        return name
    }

    /// A plain-text `pg_dump` of `database`: its schema and every row.
    public func dump(database: String) async throws -> String {
        let command = binDirectory + "/pg_dump", arguments = ["-h", socketDirectory, "-p", "\(port)", "-U", user, "--no-owner", database]
        return try await Self.offload { () throws(PostgresClusterError) in
            let result = try Self.run(command, arguments)
            try Self.check(result, "pg_dump \(database)")
            return result.stdout
        }
    }

    /// A URL of `database` over TCP on 127.0.0.1.
    ///
    /// The connect timeout is a minute, not the daemon's ten seconds: tests run in parallel on a
    /// machine that may be building at the same time, and a slow first connection is not what
    /// they test.
    public func url(database: String) -> String {
        "postgres://\(user)@127.0.0.1:\(port)/\(database)?sslmode=disable&connect_timeout=60"
    }

    /// A URL of `database` over the Unix socket (whose file name carries the cluster's port), with
    /// the same connect timeout as ``url(database:)``.
    public func socketURL(database: String) -> String {
        "postgres://\(user)@/\(database)?host=\(socketDirectory)&port=\(port)&connect_timeout=60"
    }

    /// Stops the server at once (as a crash would: no checkpoint) and waits until it is down.
    public func stop() {
        guard let process = server.withLock({ stored in defer { stored = nil }; return stored }) else { return }
        process.stop(signal: SIGQUIT, grace: 10)
    }

    /// Starts a stopped server again on the same port and folder.
    public func restart() throws(PostgresClusterError) {
        let process = try Self.launch(binDirectory: binDirectory, data: dataDirectory, socket: socketDirectory, log: logPath, port: port)
        server.withLock { $0 = process }
    }

    /// Stops the server and removes its folder.
    public func shutdown() {
        stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: Running as the cluster's user

    private static var isRoot: Bool { geteuid() == 0 }

    /// Runs a PostgreSQL binary to its end, as ``clusterUser`` when this process is root.
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) throws(PostgresClusterError) -> CommandResult {
        let (executable, arguments) = command(executable, arguments)
        do {
            return try ProcessRunner.run(executable, arguments, timeout: timeout)
        } catch {
            throw PostgresClusterError("\(executable) could not run: \(error)")
        }
    }

    /// The command line running `executable`: directly, or under root through `setpriv` as
    /// ``clusterUser`` (which execs it, so the process is the server itself and signals reach it).
    private static func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard isRoot, let entry = getpwnam(clusterUser) else { return (executable, arguments) }
        let uid = entry.pointee.pw_uid, gid = entry.pointee.pw_gid
        return ("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--", executable] + arguments)
    }

    private static func check(_ result: CommandResult, _ what: String) throws(PostgresClusterError) {
        guard result.status == 0, !result.timedOut else { throw PostgresClusterError("\(what) failed: \(result)") }
    }

    private static func ensureClusterUser() throws(PostgresClusterError) {
        guard isRoot, getpwnam(clusterUser) == nil else { return }
        let result: CommandResult
        do {
            result = try ProcessRunner.run("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", clusterUser])
        } catch {
            throw PostgresClusterError("useradd could not run: \(error)")
        }
        // Another test process may have created it at the same moment.
        guard result.status == 0 || getpwnam(clusterUser) != nil else {
            throw PostgresClusterError("creating the system user \(clusterUser) failed: \(result)")
        }
    }

    private static func giveToClusterUser(_ path: String) throws(PostgresClusterError) {
        guard isRoot else { return }
        guard let entry = getpwnam(clusterUser) else { throw PostgresClusterError("no user \(clusterUser)") }
        guard chown(path, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
            throw PostgresClusterError("chown \(path) failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// Why a test cluster is not available.
public struct PostgresClusterError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Stops the shared cluster when the test process exits (atexit takes no context, so the
/// cluster waits in a global).
private enum StopAtExit {
    static let cluster = Mutex<PostgresCluster?>(nil)

    static func register(_ cluster: PostgresCluster) {
        let first = self.cluster.withLock { stored in
            defer { stored = cluster }
            return stored == nil
        }
        if first { atexit { StopAtExit.cluster.withLock { $0 }?.shutdown() } }
    }
}

/// Free TCP ports on 127.0.0.1, for servers a test starts.
public enum FreePort {
    /// A port nothing listens on right now.
    public static func onLoopback() throws -> Int { try RadicaleServer.freePort() }
}
