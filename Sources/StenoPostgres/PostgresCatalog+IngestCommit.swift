import Foundation
import PostgresNIO
import StenoCore
import StenoStore

/// One ingest pass written in one transaction (see `IngestStore.commitIngest`).
extension PostgresCatalog: IngestStore {
    public func commitIngest(_ commit: IngestCommit, now: Date) async throws -> [IngestCommit.JobEnd] {
        guard !commit.jobs.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        return try await transaction { tx in
            // Each job's lease checked once, locking its row: no other daemon's requeue or claim
            // can take the job between this check and its completion below. Every job is
            // written before any is completed.
            var written = [[IngestCommit.Written?]?](repeating: nil, count: commit.jobs.count)
            var recordingIDs: [Int64] = []
            for (index, job) in commit.jobs.enumerated() where try await Self.holdsLease(job.claim, in: tx) {
                var entries: [IngestCommit.Written?] = []
                for file in job.files {
                    switch file.action {
                    case .record(let record):
                        recordingIDs.append(try await Self.recordIngest(record, in: tx))
                        entries.append(nil)
                    case .markGone:
                        entries.append(.gone(try await Self.markPathGone(file.path, nowMilliseconds: nowMilliseconds, in: tx)))
                    case .ignore(let reason):
                        entries.append(.ignored(reason: reason))
                    case .companion(let recordings):
                        entries.append(.companion(of: recordings))
                    case .retryAlone(let draft):
                        entries.append(.retried(jobID: try await Self.enqueue(draft, in: tx, now: now, notify: false).job.id))
                    }
                }
                written[index] = entries
                // Queued with the outcomes they follow from, while the commit's jobs still run
                // (a recording whose own job is in this commit keeps that one live job).
                for draft in job.followUps { _ = try await Self.enqueue(draft, in: tx, now: now, notify: false) }
            }
            let ids = Array(Set(recordingIDs)).sorted()
            try await Self.refreshRecordingSearch(tx, ids: ids)
            var recordings: [Int64: Recording] = [:]
            for recording in try await Self.fetchRecordings(tx, ids: ids) { recordings[recording.id] = recording }
            let assembly = try commit.assemble(written: written, storedIDs: recordingIDs, recordings: recordings)
            for completion in assembly.completions {
                guard try await Self.completeClaim(completion.claim, result: completion.result, nowMilliseconds: nowMilliseconds, in: tx)
                else {
                    // Unreachable: the job's row is locked since its lease was checked.
                    throw JobQueueRules.staleLease(completion.claim)
                }
            }
            if let draft = commit.linking?.draft(recordingIDs: assembly.ready) {
                _ = try await Self.enqueue(draft, in: tx, now: now, notify: false)
            }
            // Once for whatever this commit queued (a notification without a new job only
            // makes idle workers look).
            try await Self.notifyJobArrival(tx)
            return assembly.ends
        }
    }
}
