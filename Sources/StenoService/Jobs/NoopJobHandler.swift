import Foundation
import StenoAPI
import StenoCore

/// `system.noop`: a diagnostic job that makes the queue testable end to end and measurable
/// (`steno-bench`) without other features.
///
/// Payload: `{"sleepMilliseconds": n, "failTimes": k}`, both optional. It sleeps `n` ms
/// (cancellable), fails its first `k` attempts, then succeeds with
/// `{"attempt": a, "sleptMilliseconds": n}`.
public struct NoopJobHandler: JobHandler {
    /// The kind, `system.noop`.
    public static let kind = "system.noop"
    /// The kind, `system.noop`.
    public var kind: String { Self.kind }

    /// The handler; it has no state.
    public init() {}

    /// Sleeps, fails or succeeds as the payload asks.

    public func run(_ job: Job, context: JobContext) async throws -> JobOutcome {
        let payload: JSONValue
        do {
            payload = try JSONValue.parse(job.payload)
        } catch {
            throw JobError.permanent("the payload is not JSON: \(error)")
        }
        let sleep = payload["sleepMilliseconds"]?.intValue ?? 0
        let failTimes = payload["failTimes"]?.intValue ?? 0
        guard sleep >= 0, failTimes >= 0 else {
            throw JobError.permanent("sleepMilliseconds and failTimes must not be negative")
        }
        if sleep > 0 { try await Task.sleep(for: .milliseconds(sleep)) }
        if job.attempts <= failTimes {
            throw NoopFailure(attempt: job.attempts, failTimes: Int(failTimes))
        }
        let result: JSONValue = ["attempt": .int(Int64(job.attempts)), "sleptMilliseconds": .int(sleep)]
        return .succeeded(result: result.serializedString)
    }

    /// The deliberate failure of an early attempt.
    struct NoopFailure: Error, CustomStringConvertible {
        var attempt: Int
        var failTimes: Int
        var description: String { "deliberate failure \(attempt) of \(failTimes) (system.noop failTimes)" }
    }
}
