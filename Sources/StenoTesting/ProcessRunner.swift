#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// What a finished command left: its exit status and both output streams.
public struct CommandResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Whether the command outlived its time limit and was killed.
    public var timedOut: Bool

    public init(status: Int32, stdout: String, stderr: String, timedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
    }

    public var description: String { "exit \(status)\(timedOut ? " (timed out)" : "")\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// Runs commands for tests and benchmarks, bounded in time.
///
/// Both output streams are read at once, each on a thread of its own: a child that fills one
/// pipe (64 KiB) while the runner waits on the other would otherwise block for ever.
public enum ProcessRunner {
    /// Runs `executable` with `arguments`, standard input closed.
    ///
    /// - Parameters:
    ///   - environment: variables set on top of this process's environment.
    ///   - removing: variables taken out of it first (a test's own `STENO_SOCKET`, say).
    ///   - timeout: after this long the child gets SIGTERM, then SIGKILL a second later.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], removing: [String] = [],
        timeout: TimeInterval = 30
    ) throws -> CommandResult {
        var merged = ProcessInfo.processInfo.environment
        for key in removing { merged.removeValue(forKey: key) }
        merged.merge(environment) { _, new in new }
        let process = try ChildProcess(executable, arguments, environment: merged, standardOutput: .pipe, standardError: .pipe)
        guard let outHandle = process.standardOutput, let errHandle = process.standardError else {
            throw ChildProcess.SpawnError(description: "no pipes to \(executable)")
        }
        let stdout = PipeDrain(outHandle), stderr = PipeDrain(errHandle)
        let exited = process.waitUntilExit(timeout: timeout)
        if !exited { process.stop(signal: SIGTERM, grace: 1) }
        return CommandResult(
            status: process.terminationStatus, stdout: String(decoding: stdout.finish(), as: UTF8.self),
            stderr: String(decoding: stderr.finish(), as: UTF8.self), timedOut: !exited)
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeDrain: Sendable {
    private let data = Mutex(Data())
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            let read = handle.readDataToEndOfFile()
            data.withLock { $0 = read }
            done.signal()
        }
        thread.start()
    }

    /// Everything read, once the writer closed the pipe (a grandchild holding it open is given
    /// five seconds, then whatever came so far is returned).
    func finish() -> Data {
        _ = done.wait(timeout: .now() + 5)
        return data.withLock { $0 }
    }
}
