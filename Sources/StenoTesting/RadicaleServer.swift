#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A real Radicale CalDAV server (`python3 -m radicale`) on 127.0.0.1 and a free port, with a
/// temporary storage folder and a plain htpasswd file, for integration tests and benchmarks.
/// Stopped and its folder removed on ``shutdown()`` or deinit.
public final class RadicaleServer: @unchecked Sendable {
    /// The temporary folder holding config, users, storage and log.
    public let root: String
    public let port: Int
    /// Users and their passwords.
    public let users: [String: String]
    private var process: ChildProcess?

    /// The server's base URL, `http://127.0.0.1:PORT/`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/") }
    /// The filesystem storage root: collections live under `collection-root/USER/NAME/`.
    public var storageFolder: String { root + "/collections" }
    public var logPath: String { root + "/radicale.log" }

    /// Whether `python3 -m radicale` can run here.
    public static var isInstalled: Bool {
        (try? run(["python3", "-c", "import radicale"]).status) == 0
    }

    /// Starts a server and waits until it answers.
    ///
    /// - Parameters:
    ///   - users: accounts of the htpasswd file (plain passwords).
    ///   - extraConfig: more `radicale.conf` lines, e.g. raised `[server] max_content_length`.
    ///   - prepare: called with the storage folder before start-up (write collections directly).
    /// - Throws: ``RadicaleServerError`` when Radicale is not installed or does not answer.
    public init(
        users: [String: String] = ["alice": "secret"], extraConfig: String = "", prepare: ((String) throws -> Void)? = nil
    ) throws {
        guard Self.isInstalled else {
            throw RadicaleServerError("Radicale is not installed: run `pip install radicale` (the CI script .ci/run does)")
        }
        var template = Array("/tmp/steno-radicale-XXXXXX".utf8CString)
        guard let pointer = mkdtemp(&template) else { throw RadicaleServerError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        root = String(cString: pointer)
        self.users = users
        port = try Self.freePort()
        try users.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)\n" }.joined()
            .write(toFile: root + "/users", atomically: true, encoding: .utf8)
        let config = """
            [server]
            hosts = 127.0.0.1:\(port)
            [auth]
            type = htpasswd
            htpasswd_filename = \(root)/users
            htpasswd_encryption = plain
            delay = 0
            [storage]
            filesystem_folder = \(storageFolder)
            [logging]
            level = warning
            \(extraConfig)
            """
        try Self.mergeSections(config).write(toFile: root + "/radicale.conf", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: storageFolder + "/collection-root", withIntermediateDirectories: true)
        try prepare?(storageFolder)
        try start()
    }

    deinit { shutdown() }

    /// Starts the process and waits (bounded) until it answers HTTP.
    public func start(timeout: TimeInterval = 30) throws {
        let log = ChildProcess.Stream.appending(toFile: logPath)
        let process = try ChildProcess(
            "/usr/bin/env", ["python3", "-m", "radicale", "--config", root + "/radicale.conf"], standardOutput: log, standardError: log)
        self.process = process
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if !process.isRunning {
                throw RadicaleServerError("radicale exited with status \(process.terminationStatus) during start-up:\n\(self.log)")
            }
            if Self.answers(port: port) { return }
            usleep(50_000)
        }
        throw RadicaleServerError("radicale did not answer on 127.0.0.1:\(port) within \(timeout) s:\n\(self.log)")
    }

    /// CPU seconds (user + system) the server process has used so far, read from `/proc`;
    /// nil when it is not running or `/proc` is unreadable. Benchmarks use it to tell time
    /// spent in Radicale from time spent in the client.
    public var cpuSeconds: Double? {
        guard let process, process.isRunning else { return nil }
        return Self.cpuSeconds(ofProcess: process.processIdentifier)
    }

    /// CPU seconds (user + system, all threads) a process has used so far, from
    /// `/proc/PID/stat`; nil when unreadable.
    public static func cpuSeconds(ofProcess pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        // Fields after the command name: state is field 3, utime 14, stime 15 (proc(5)).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The URL of a user's collection (`/USER/NAME/`).
    public func collectionURL(user: String, name: String) -> URL {
        baseURL.appendingPathComponent(user, isDirectory: true).appendingPathComponent(name, isDirectory: true)
    }

    /// The filesystem folder of a user's collection, for writing `.ics` files before start-up.
    public func collectionFolder(user: String, name: String) -> String {
        storageFolder + "/collection-root/\(user)/\(name)"
    }

    /// Stops the server (SIGTERM, then SIGKILL after half a second: the storage is thrown away)
    /// and waits for it.
    public func stop() {
        guard let process else { return }
        self.process = nil
        process.stop(signal: SIGTERM, grace: 0.5)
    }

    /// Stops the server and removes its folder.
    public func shutdown() {
        stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    // MARK: - Helpers

    /// Writes a collection's `.Radicale.props` (a calendar with a display name) into `storageFolder`;
    /// call from `prepare`.
    public static func writeCalendarProps(folder: String, displayName: String, color: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var props: [String: String] = ["tag": "VCALENDAR", "D:displayname": displayName, "C:supported-calendar-component-set": "VEVENT"]
        if let color { props["ICAL:calendar-color"] = color }
        let data = try JSONSerialization.data(withJSONObject: props, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: folder + "/.Radicale.props"))
    }

    /// `[section]` blocks repeated in `extraConfig` are merged into the first one of that name;
    /// an option set again replaces the earlier value (Radicale refuses duplicates).
    static func mergeSections(_ text: String) -> String {
        var order: [String] = []
        var sections: [String: [String]] = [:]
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = line
                if sections[current] == nil { order.append(current); sections[current] = [] }
            } else if !line.isEmpty {
                if sections[current] == nil { order.append(current); sections[current] = [] }
                let key = line.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) }
                sections[current]?.removeAll { $0.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } == key }
                sections[current, default: []].append(line)
            }
        }
        return order.map { ([$0] + (sections[$0] ?? [])).filter { !$0.isEmpty }.joined(separator: "\n") }.joined(separator: "\n") + "\n"
    }

    /// A TCP port free on 127.0.0.1 right now (bound to port 0, then released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RadicaleServerError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw RadicaleServerError("bind() failed: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw RadicaleServerError("getsockname() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:port.
    static func answers(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Runs a command, returning its exit status and combined output.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ProcessRunner.run("/usr/bin/env", arguments, timeout: 120)
        return (result.status, result.stdout + result.stderr)
    }
}

/// A failure to start or use the test Radicale server.
public struct RadicaleServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
