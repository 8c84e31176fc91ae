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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for key in removing { merged.removeValue(forKey: key) }
        merged.merge(environment) { _, new in new }
        process.environment = merged
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = PipeDrain(out.fileHandleForReading), stderr = PipeDrain(err.fileHandleForReading)

        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        let timedOut = process.isRunning
        if timedOut {
            kill(process.processIdentifier, SIGTERM)
            let grace = Date().addingTimeInterval(1)
            while process.isRunning && Date() < grace { usleep(5_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus, stdout: String(decoding: stdout.finish(), as: UTF8.self),
            stderr: String(decoding: stderr.finish(), as: UTF8.self), timedOut: timedOut)
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
