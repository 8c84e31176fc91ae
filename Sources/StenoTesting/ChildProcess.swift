#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A child process started with `posix_spawn`, for tests and benchmarks.
///
/// Foundation's `Process` crashed inside `run()` when many tests started children at once
/// (a bad pointer dereference in its launch path), and it waits for every holder of a child's
/// pipes before it calls a child ended. This type does neither: it spawns directly, the child
/// inherits only its three standard streams, and it is reaped by its own pid with `WNOHANG`
/// under a lock, so any number of threads may ask whether it still runs.
public final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// This process's own stream of the same number.
        case inherit
        /// A file, appended to (created if missing).
        case appending(toFile: String)
        /// A pipe whose other end this process holds (``standardInput``, ``standardOutput``,
        /// ``standardError``).
        case pipe
        /// The same place as the child's standard output (for standard error only).
        case standardOutput
    }

    /// How a child ended.
    public enum Termination: Sendable, Equatable {
        /// It called `exit` with this status.
        case exited(Int32)
        /// A signal of this number ended it.
        case signalled(Int32)
    }

    /// Why a child could not start.
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    public let processIdentifier: pid_t
    /// The writing end of the child's standard input when it is a ``Stream/pipe``.
    public let standardInput: FileHandle?
    /// The reading end of the child's standard output when it is a ``Stream/pipe``.
    public let standardOutput: FileHandle?
    /// The reading end of the child's standard error when it is a ``Stream/pipe``.
    public let standardError: FileHandle?
    private let ended = Mutex<Termination?>(nil)

    /// Starts `executable` (a path) with `arguments`.
    ///
    /// - Parameter environment: the child's whole environment; this process's when nil.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput input: Stream = .null, standardOutput output: Stream = .null, standardError error: Stream = .null
    ) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        func fail(_ what: String, _ code: Int32 = errno) -> SpawnError {
            parentEnds.compactMap { $0 }.forEach { close($0) }
            return SpawnError(description: "\(what) for \(executable): \(String(cString: strerror(code)))")
        }
        for (target, stream) in [(Int32(0), input), (1, output), (2, error)] {
            switch stream {
            case .inherit:
                break
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .appending(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, target)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw fail("pipe") }
                // Close-on-exec for both ends here: the child gets its end through dup2 only.
                _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
                let (childEnd, parentEnd) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(childEnd)
                parentEnds[Int(target)] = parentEnd
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
            }
        }
        // Descriptors this process opened without close-on-exec (a test's sockets, another
        // child's pipes) stay here: a child holding another's pipe would keep it from ending.
        Self.closeInheritedDescriptors(&actions)

        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Signals this process ignores or blocks would otherwise stay so in the child.
        var defaults = sigset_t(), none = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw fail("posix_spawn", spawned) }
        processIdentifier = pid
        standardInput = parentEnds[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardOutput = parentEnds[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        standardError = parentEnds[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), looked up at run time: Swift's
    /// Glibc module does not declare this GNU extension.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Has the child close every descriptor above standard error; without `closefrom`, those
    /// open now without close-on-exec.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom {
            _ = addCloseFrom(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 && fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// Reaps a child that has ended (once; its pid is not asked again) and returns how it ended.
    private func reap() -> Termination? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            guard result == processIdentifier else { return nil }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            let signal = status & 0x7F
            ended = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
            return ended
        }
    }

    /// Whether the child still runs.
    public var isRunning: Bool { reap() == nil }

    /// How the child ended; nil while it runs.
    public var termination: Termination? { reap() }

    /// The exit status, or the number of the signal that ended it (as Foundation's `Process`);
    /// -1 while the child runs.
    public var terminationStatus: Int32 {
        switch reap() {
        case .exited(let status), .signalled(let status): status
        case nil: -1
        }
    }

    /// Sends `signal` to a child that still runs.
    public func send(_ signal: Int32) {
        if isRunning { kill(processIdentifier, signal) }
    }

    /// Sends SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Waits for the child to end, up to `timeout` (for ever when nil); returns whether it did.
    @discardableResult
    public func waitUntilExit(timeout: TimeInterval? = nil) -> Bool {
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        // Polled: a blocking waitpid would hold the lock other callers need, and tests ask seldom.
        while isRunning {
            if let deadline, Date() >= deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// Sends `signal`, waits up to `grace` for the child to end, then kills it; returns how it ended.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, grace: TimeInterval = 5) -> Termination? {
        send(signal)
        if !waitUntilExit(timeout: grace) {
            send(SIGKILL)
            waitUntilExit()
        }
        return termination
    }

    deinit {
        // A child nobody waited for would stay a zombie until this process ends.
        if ended.withLock({ $0 }) == nil {
            kill(processIdentifier, SIGKILL)
            var status: Int32 = 0
            while waitpid(processIdentifier, &status, 0) < 0 && errno == EINTR {}
        }
    }
}
