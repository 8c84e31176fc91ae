import Foundation
import Logging

/// A write guarded by a precondition (`If-Match`), retried once when the source says the
/// target changed in between (HTTP 412): every provider's writes follow this rule, so none
/// overwrites a change Steno has not seen and a single concurrent edit does not fail a write.
enum ConditionalWrite {
    /// What one attempt found.
    enum Attempt<Value: Sendable>: Sendable {
        case written(Value)
        /// 412: the target changed since it was read.
        case changedMeanwhile
    }

    /// Runs `attempt` (which reads the target afresh when `isRetry`), once more after a 412.
    ///
    /// - Parameters:
    ///   - target: what is written, for messages (`event X in me`, a URL).
    ///   - request: the request that carried the precondition (`PATCH with If-Match`).
    /// - Throws: ``CalendarWriteError/conflict(_:)`` after a second 412, or what `attempt` throws.
    static func retryingOnce<Value: Sendable>(
        target: String, request: String, logger: Logger, _ attempt: (_ isRetry: Bool) async throws -> Attempt<Value>
    ) async throws -> Value {
        for isRetry in [false, true] {
            switch try await attempt(isRetry) {
            case .written(let value):
                return value
            case .changedMeanwhile where !isRetry:
                logger.info("the target changed while it was written; reading it again", metadata: ["target": "\(target)"])
            case .changedMeanwhile:
                break
            }
        }
        throw CalendarWriteError.conflict("\(target) changed again while it was written (HTTP 412 twice to \(request)); try later")
    }
}
