import Foundation
import StenoCatalog
import StenoCore

/// The recordings that have outlived `[retention]`, found and deleted (their files removed from
/// the inbox, or moved to the archive) by the nightly `retention.run`; the preview finds them
/// the same way.
package struct RetentionRun: Sendable {
    let store: any RecordingDeletionStore & RetentionStore
    let settings: RetentionSettings

    package init(store: any RecordingDeletionStore & RetentionStore, settings: RetentionSettings) {
        self.store = store
        self.settings = settings
    }
    /// Candidates read per query: each reads the whole range of ages it pages through, so
    /// few and large (a candidate is a few hundred bytes).
    static let pageSize = 20_000
    /// Recordings marked, then finished, per transaction: fewer writes than a deletion job's
    /// batches, as a nightly run deletes thousands; the write lock is held a few milliseconds.
    static let batchSize = 2_000

    /// The recordings a run at `now` removes, ascending by id: neither held nor marked yet.
    package func expired(now: Date) async throws -> [RetentionExpiry] {
        guard let cutoff = settings.policy.oldestKept(now: now) else { return [] }
        var expired: [RetentionExpiry] = []
        var afterID: Int64 = 0
        while true {
            try Task.checkCancellation()
            let page = try await store.retentionCandidates(agedBefore: cutoff, afterID: afterID, limit: Self.pageSize)
            expired += page.compactMap { settings.policy.expiry(of: $0, now: now) }
            guard page.count == Self.pageSize, let last = page.last else { break }
            afterID = last.recordingID
        }
        return expired
    }

    /// The deletion of `expired`, a batch of 2,000 at a time: each batch marked (on `retention`'s
    /// word), its files removed or archived, then its rows deleted. A
    /// recording held since it was found is left alone. Marks an earlier attempt left (a file
    /// that could not be removed) are finished first, and fail the attempt again while they
    /// cannot be; a crash leaves marks that the deletion resumed at start-up finishes.
    package func delete(
        _ expired: [RetentionExpiry], now: Date, finisher: RecordingDeletionJobHandler, context: JobContext
    ) async throws -> RetentionJob.Result {
        let left = try await finisher.finish(nil, context: context)
        var result = RetentionJob.Result(expired: expired.count, deleted: left.deleted, files: left.files, archivedTo: settings.archiveDirectory)
        await context.reportProgress("deleted 0 of \(expired.count) expired recordings")
        for start in stride(from: 0, to: expired.count, by: Self.batchSize) {
            try Task.checkCancellation()
            let ids = expired[start..<min(start + Self.batchSize, expired.count)].map(\.recordingID)
            // Content is not remembered: a copy dropped again is as old as the one that went, and
            // goes at the next run, while a hash kept for every expired recording would grow
            // without end.
            let request = DeletionRequest(
                recordingIDs: ids, requestedBy: RetentionJob.requester, withFiles: true, remembersContent: false,
                archiveDirectory: settings.archiveDirectory, access: .init(.retention, uid: nil), now: now)
            let marked = try await store.markForDeletion(request, job: nil)
            let done = try await finisher.finish(marked.recordingIDs, batchSize: Self.batchSize, context: context)
            result.deleted += done.deleted
            result.files += done.files
            await context.reportProgress("deleted \(result.deleted) of \(expired.count) expired recordings")
        }
        return result
    }
}

/// `retention.run`: deletes the recordings that have outlived `[retention]` (nightly at
/// `expire_cron`, when some rule removes anything).
public enum RetentionJob: JobKind {
    public static let name = "retention.run"
    /// Who the deletions are recorded as requested by.
    public static let requester = "retention"
    /// Attempts a run has: each crash of the daemon counts as one.
    public static let maxAttempts = 100

    /// `{}`: the run follows the configuration the daemon was started with.
    public struct Payload: Codable, Sendable, Hashable {
        public init() {}
    }

    /// `{"expired": n, "deleted": n, "files": n, "archivedTo": DIR}`: the recordings found
    /// expired, those deleted (a recording held meanwhile stays; marks left before go too),
    /// their files removed from the inbox (moved to `archivedTo`, when set).
    public struct Result: Codable, Sendable, Hashable {
        public var expired: Int
        public var deleted: Int
        public var files: Int
        public var archivedTo: String?
    }
}

/// Runs `retention.run` jobs.
struct RetentionJobHandler: JobHandler {
    let store: any RecordingDeletionStore & RetentionStore
    let settings: RetentionSettings
    let finisher: RecordingDeletionJobHandler

    func run(_ attempts: [JobAttempt<RetentionJob>], context: JobContext) async throws -> [JobOutcome<RetentionJob.Result>] {
        await attempts.eachAttempt { _ in
            let now = Date()
            let run = RetentionRun(store: store, settings: settings)
            let result = try await run.delete(try await run.expired(now: now), now: now, finisher: finisher, context: context)
            context.logger.notice(
                "recordings older than [retention] allows deleted",
                metadata: [
                    "expired": "\(result.expired)", "deleted": "\(result.deleted)", "files": "\(result.files)",
                    "archive": .string(result.archivedTo ?? "none"),
                ])
            return .succeeded(result)
        }
    }
}
