import Foundation
import StenoCatalog
import StenoCore

/// Recordings whose files are gone from the inbox, deleted after a while: found, then marked
/// with a deletion job for each batch, as `recordings.delete` marks them (their content
/// remembered, so a file that comes back is not catalogued again).
struct MissingRecordingPurge: Sendable {
    let store: any RecordingDeletionStore
    /// Recordings marked per transaction (and per deletion job).
    static let batchSize = 1_000

    /// What a purge marked: the recordings, and the jobs deleting them.
    struct Marked: Sendable, Hashable {
        var recordings: [Int64] = []
        var jobs: [Int64] = []
    }

    /// The recordings missing for more than `days` days at `now`, ascending, at most `limit`:
    /// what ``mark(olderThanDays:requestedBy:now:)`` would mark.
    func candidates(olderThanDays days: Int, now: Date, limit: Int) async throws -> [Int64] {
        try await store.missingRecordings(before: now.addingTimeInterval(-Double(days) * 86_400), limit: limit)
    }

    /// Marks the recordings missing for more than `days` days, on `requestedBy`'s word (from
    /// `uid`, when a caller asked), and logs each.
    func mark(olderThanDays days: Int, requestedBy: String, uid: UInt32? = nil, now: Date) async throws -> Marked {
        var marked = Marked()
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
        while true {
            try Task.checkCancellation()
            let ids = try await store.missingRecordings(before: cutoff, limit: Self.batchSize)
            guard !ids.isEmpty else { break }
            let request = DeletionRequest(
                recordingIDs: ids, requestedBy: requestedBy, withFiles: false, access: .init(.purge, uid: uid, detail: "missing for more than \(days) days"),
                now: now)
            let done = try await store.markForDeletion(
                request, job: try RecordingDeletionJob.draft(recordings: ids, requestedBy: requestedBy))
            guard let job = done.job else { break }
            marked.recordings += done.recordingIDs
            marked.jobs.append(job.id)
        }
        return marked
    }
}

/// `recordings.purge-missing`: the nightly purge of `[retention] purge_missing_after_days`.
public enum PurgeMissingJob: JobKind {
    public static let name = "recordings.purge-missing"

    /// `{"olderThanDays": N}`.
    public struct Payload: Codable, Sendable, Hashable {
        public var olderThanDays: Int
        public init(olderThanDays: Int) { self.olderThanDays = olderThanDays }
    }

    /// `{"marked": n, "deletionJobs": [ID, …]}`.
    public struct Result: Codable, Sendable, Hashable {
        public var marked: Int
        public var deletionJobs: [Int64]
    }
}

/// Runs `recordings.purge-missing` jobs.
struct PurgeMissingJobHandler: JobHandler {
    let store: any RecordingDeletionStore
    let queue: JobQueue

    func run(_ attempts: [JobAttempt<PurgeMissingJob>], context: JobContext) async throws -> [JobOutcome<PurgeMissingJob.Result>] {
        await attempts.eachAttempt { attempt in
            guard attempt.payload.olderThanDays >= 1 else { throw JobError.permanent("olderThanDays must be at least 1") }
            let marked = try await MissingRecordingPurge(store: store).mark(
                olderThanDays: attempt.payload.olderThanDays, requestedBy: "retention", now: Date())
            if !marked.jobs.isEmpty { queue.wake() }
            context.logger.notice(
                "recordings missing for more than \(attempt.payload.olderThanDays) days marked for deletion",
                metadata: ["recordings": "\(marked.recordings.count)", "jobs": "\(marked.jobs.count)"])
            return .succeeded(PurgeMissingJob.Result(marked: marked.recordings.count, deletionJobs: marked.jobs))
        }
    }
}
