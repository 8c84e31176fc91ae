import Foundation
import StenoCatalog
import StenoCore

/// `recordings.delete`: finishes the deletion of marked recordings — their files removed from
/// the inbox when asked, then their rows. Queued by `recordings.delete` in the transaction that
/// marks them; a crash at any instant leaves the marks, and the job runs again (every step is
/// safe to repeat: a file already gone counts as removed, a recording already gone as deleted).
public enum RecordingDeletionJob: JobKind {
    public static let name = "recordings.delete"

    /// `{"recordings": [ID, …], "requestedBy": NAME}`; every marked recording when absent.
    public struct Payload: Codable, Sendable, Hashable {
        public var recordings: [Int64]?
        /// Who asked (a user name): the member who may follow the job, whose recordings are
        /// gone by the time it ends.
        public var requestedBy: String?

        public init(recordings: [Int64]?, requestedBy: String?) {
            self.recordings = recordings
            self.requestedBy = requestedBy
        }
    }

    /// `{"deleted": n, "files": m}`: recordings whose rows went, files removed from the inbox.
    public struct Result: Codable, Sendable, Hashable {
        public var deleted: Int
        public var files: Int
    }
}

extension RecordingDeletionJob {
    /// Attempts a deletion job has: every attempt finishes some of its recordings, and each
    /// crash of the daemon counts as one, so the job must outlast many before it gives up.
    public static let maxAttempts = 100

    /// The job finishing `recordings` (every marked recording when nil) on `requestedBy`'s word.
    public static func draft(recordings: [Int64]?, requestedBy: String?, uniqueKey: String? = nil) throws -> JobDraft {
        var draft = try draft(.init(recordings: recordings, requestedBy: requestedBy), priority: JobPriority.interactive, uniqueKey: uniqueKey)
        draft.maxAttempts = maxAttempts
        return draft
    }
}

/// Runs `recordings.delete` jobs.
package struct RecordingDeletionJobHandler: JobHandler {
    let store: any RecordingDeletionStore
    let inbox: Inbox

    /// Removes the files of `inbox` that marked recordings name.
    init(store: any RecordingDeletionStore, inbox: Inbox) {
        self.store = store
        self.inbox = inbox
    }

    /// Removes the files of the inbox at `inboxDirectory` that marked recordings name.
    package init(store: any RecordingDeletionStore, inboxDirectory: String) {
        self.init(store: store, inbox: Inbox(inboxDirectory))
    }
    /// Recordings finished per transaction: one write per batch, progress between batches.
    package static let batchSize = 200

    package func run(_ attempts: [JobAttempt<RecordingDeletionJob>], context: JobContext) async throws -> [JobOutcome<RecordingDeletionJob.Result>] {
        await attempts.eachAttempt { attempt in
            let ids = attempt.payload.recordings
            let result = try await finish(ids, context: context) { done in
                await context.reportProgress(ids.map { "deleted \(done.deleted) of \($0.count) recordings" } ?? "deleted \(done.deleted) recordings")
            }
            context.logger.info("recordings deleted", metadata: ["deleted": "\(result.deleted)", "files": "\(result.files)"])
            return .succeeded(result)
        }
    }

    /// Removes (or archives) the files of the marked recordings that asked for it, with their
    /// sidecars and transcripts, then deletes their rows, a batch at a time, telling `progress`
    /// after each. A file that cannot be removed fails the attempt before its recording's rows
    /// go, so the recording stays whole until a later attempt removes it.
    package func finish(
        _ ids: [Int64]?, batchSize: Int = Self.batchSize, context: JobContext,
        progress: (RecordingDeletionJob.Result) async -> Void = { _ in }
    ) async throws -> RecordingDeletionJob.Result {
        var result = RecordingDeletionJob.Result(deleted: 0, files: 0)
        var afterID: Int64 = 0
        while true {
            try Task.checkCancellation()
            let batch = try await store.pendingDeletions(ids: ids, afterID: afterID, limit: batchSize)
            guard let last = batch.last else { break }
            var folders = InboxFileRemoval.Folders()
            for pending in batch where pending.withFiles {
                // Its sidecar and transcript hold its title, people and words: they go too.
                for path in pending.paths {
                    for (file, outcome) in try InboxFileRemoval.remove(
                        path, withCompanions: true, in: inbox, archivingTo: pending.archiveDirectory, folders: &folders)
                    {
                        switch outcome {
                        case .removed, .archived: result.files += 1
                        case .absent: break
                        case .outside(let reason):
                            context.logger.warning(
                                "a deleted recording's file is left in place: \(reason)",
                                metadata: ["recording": "\(pending.recordingID)", "path": .string(file)])
                        }
                    }
                }
            }
            result.deleted += try await store.finishDeletions(batch.map(\.recordingID))
            afterID = last.recordingID
            await progress(result)
        }
        return result
    }
}
