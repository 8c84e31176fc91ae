import StenoCatalog
import StenoCore

extension StenoDaemon {
    /// Recordings marked for deletion whose job is gone (it gave up, or was cancelled) are
    /// finished by a job queued at start-up: a mark is a promise that the recording goes.
    func resumeDeletions(store: any CatalogStore, queue: JobQueue) async {
        do {
            guard !(try await store.pendingDeletions(ids: nil, afterID: 0, limit: 1)).isEmpty else { return }
            // A job still live (requeued after a crash) finishes its own marks; only marks
            // without one need the start-up job. Any job left finishes every mark it names.
            for state in [JobState.queued, .running, .failed]
            where !(try await store.jobs(state: state, kind: RecordingDeletionJob.name, afterID: nil, limit: 1)).isEmpty {
                return
            }
            let draft = try RecordingDeletionJob.draft(recordings: nil, requestedBy: nil, uniqueKey: Self.deletionResumeKey)
            let queued = try await queue.enqueue(draft)
            logger.notice("recordings marked for deletion are being finished", metadata: ["job": "\(queued.job.id)"])
        } catch {
            logger.error("cannot queue the deletion of recordings marked before: \(error); it is tried again at the next start")
        }
    }

    /// The unique key of the start-up deletion job: one at a time.
    static let deletionResumeKey = "recordings.delete.resume"
}
