import Foundation
import StenoCatalog
import StenoCore

/// `audit.prune`: the access log's entries older than `[retention] audit_days`, removed
/// nightly (at `purge_cron`).
public enum AccessLogPruneJob: JobKind {
    public static let name = "audit.prune"

    /// `{"olderThanDays": N}`.
    public struct Payload: Codable, Sendable, Hashable {
        public var olderThanDays: Int
        public init(olderThanDays: Int) { self.olderThanDays = olderThanDays }
    }

    /// `{"removed": n}`.
    public struct Result: Codable, Sendable, Hashable {
        public var removed: Int
    }
}

/// Runs `audit.prune` jobs.
struct AccessLogPruneJobHandler: JobHandler {
    let store: any AccessLogStore

    func run(_ attempts: [JobAttempt<AccessLogPruneJob>], context: JobContext) async throws -> [JobOutcome<AccessLogPruneJob.Result>] {
        await attempts.eachAttempt { attempt in
            guard attempt.payload.olderThanDays >= 1 else { throw JobError.permanent("olderThanDays must be at least 1") }
            let removed = try await store.pruneAccessLog(before: Date().addingTimeInterval(-Double(attempt.payload.olderThanDays) * 86_400))
            context.logger.info("old access log entries removed", metadata: ["removed": "\(removed)", "olderThanDays": "\(attempt.payload.olderThanDays)"])
            return .succeeded(AccessLogPruneJob.Result(removed: removed))
        }
    }
}
