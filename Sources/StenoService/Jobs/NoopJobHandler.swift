import Foundation
import StenoCore

/// `system.noop`: a diagnostic job that makes the queue testable end to end and measurable
/// (`steno-bench`) without other features.
///
/// It sleeps `sleepMilliseconds` (cancellable), fails its first `failTimes` attempts, then
/// succeeds with the attempt and the time slept.
public enum NoopJob: JobKind {
    /// The kind, `system.noop`.
    public static let name = "system.noop"

    /// `{"sleepMilliseconds": n, "failTimes": k}`, both optional.
    public struct Payload: Codable, Sendable, Hashable {
        /// How long to sleep; none when nil.
        public var sleepMilliseconds: Int64?
        /// How many attempts fail first; none when nil.
        public var failTimes: Int64?

        /// A payload sleeping and failing as given.
        public init(sleepMilliseconds: Int64? = nil, failTimes: Int64? = nil) {
            self.sleepMilliseconds = sleepMilliseconds
            self.failTimes = failTimes
        }
    }

    /// `{"attempt": a, "sleptMilliseconds": n}`.
    public struct Result: Codable, Sendable, Hashable {
        /// The attempt that succeeded.
        public var attempt: Int
        /// How long it slept.
        public var sleptMilliseconds: Int64
    }
}

/// Runs `system.noop` jobs.
public struct NoopJobHandler: JobHandler {
    /// The handler; it has no state.
    public init() {}

    /// Sleeps, fails or succeeds as each payload asks.
    public func run(_ attempts: [JobAttempt<NoopJob>], context: JobContext) async throws -> [JobOutcome<NoopJob.Result>] {
        await attempts.eachAttempt { attempt in
            let sleep = attempt.payload.sleepMilliseconds ?? 0
            let failTimes = attempt.payload.failTimes ?? 0
            guard sleep >= 0, failTimes >= 0 else {
                throw JobError.permanent("sleepMilliseconds and failTimes must not be negative")
            }
            if sleep > 0 { try await Task.sleep(for: .milliseconds(sleep)) }
            let attemptNumber = attempt.job.attempts
            if attemptNumber <= failTimes {
                throw NoopFailure(attempt: attemptNumber, failTimes: Int(failTimes))
            }
            return .succeeded(NoopJob.Result(attempt: attemptNumber, sleptMilliseconds: sleep))
        }
    }

    /// The deliberate failure of an early attempt.
    struct NoopFailure: Error, CustomStringConvertible {
        var attempt: Int
        var failTimes: Int
        var description: String { "deliberate failure \(attempt) of \(failTimes) (system.noop failTimes)" }
    }
}
