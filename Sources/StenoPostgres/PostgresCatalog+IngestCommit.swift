import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// One ingest pass written in one transaction (see `IngestStore.commitIngest`).
extension PostgresCatalog: IngestStore {
    public func commitIngest(_ commit: IngestCommit, now: Date) async throws -> [IngestCommit.JobEnd] {
        guard !commit.jobs.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        let (ends, enqueued) = try await transaction { tx -> ([IngestCommit.JobEnd], Int) in
            // Content deleted from the catalog is not catalogued again; checked in the writing
            // transaction, so a deletion committed meanwhile is seen.
            let commit = commit.ignoringDeletedContents(try await Self.deletedContents(commit.recordedContentHashes, in: tx))
            // Every job's lease checked in one statement, locking the rows: no other daemon's
            // requeue or claim can take a job between this check and its completion below.
            // Every job is written before any is completed.
            let held = try await Self.heldLeases(commit.jobs.map(\.claim), in: tx)
            var written = [[IngestCommit.Written?]?](repeating: nil, count: commit.jobs.count)
            var recordingIDs: [Int64] = []
            // Queued together after the files (one insert): the drafts of files retried alone,
            // whose entries wait for their job's id, and the follow-ups, in the order the jobs
            // list them, while the commit's jobs still run (a recording whose own job is in
            // this commit keeps that one live job).
            var drafts: [JobDraft] = []
            var retriedEntries: [(job: Int, file: Int, draft: Int)] = []
            // New files with new content first, all at once; the rest one at a time below.
            let files = commit.jobs.filter { held.contains($0.claim.job.id) }.flatMap(\.files)
            let candidates = Self.newRecordingCandidates(files)
            let storedAtOnce = try await Self.recordNewIngests(
                candidates.compactMap { if case .record(let record) = files[$0].action { record } else { nil } }, in: tx)
            var newRecordingIDs: [Int: Int64] = [:]
            for (position, fileIndex) in candidates.enumerated() { newRecordingIDs[fileIndex] = storedAtOnce[position] }
            var fileIndex = 0
            for (index, job) in commit.jobs.enumerated() where held.contains(job.claim.job.id) {
                var entries: [IngestCommit.Written?] = []
                for file in job.files {
                    defer { fileIndex += 1 }
                    switch file.action {
                    case .record(let record):
                        if let id = newRecordingIDs[fileIndex] {
                            recordingIDs.append(id)
                        } else {
                            recordingIDs.append(try await Self.recordIngest(record, in: tx))
                        }
                        entries.append(nil)
                    case .markGone:
                        entries.append(.gone(try await Self.markPathGone(file.path, nowMilliseconds: nowMilliseconds, in: tx)))
                    case .ignore(let reason):
                        entries.append(.ignored(reason: reason))
                    case .companion(let recordings):
                        entries.append(.companion(of: recordings))
                    case .retryAlone(let draft):
                        retriedEntries.append((index, entries.count, drafts.count))
                        drafts.append(draft)
                        entries.append(nil)
                    }
                }
                written[index] = entries
                drafts += job.followUps
            }
            let queued = try await Self.enqueue(drafts, in: tx, now: now, notify: false)
            for entry in retriedEntries { written[entry.job]?[entry.file] = .retried(jobID: queued[entry.draft].job.id) }
            let ids = Array(Set(recordingIDs)).sorted()
            try await Self.refreshRecordingSearch(tx, ids: ids)
            var recordings: [Int64: Recording] = [:]
            for recording in try await Self.fetchRecordings(tx, ids: ids) { recordings[recording.id] = recording }
            var assembly = try commit.assemble(written: written, storedIDs: recordingIDs, recordings: recordings)
            var enqueued = queued.filter(\.isNew).count
            if let draft = commit.linking?.draft(recordingIDs: assembly.ready) {
                let linking = try await Self.enqueue(draft, in: tx, now: now, notify: false)
                if linking.isNew { enqueued += 1 }
                assembly.noteLinkJob(linking.job.id)
            }
            if !assembly.completions.isEmpty {
                let completed = try await tx.rows(Self.completion(assembly.completions, nowMilliseconds: nowMilliseconds))
                let recorded = Self.recorded(assembly.completions, completedIDs: Set(try completed.map { try $0.decode(Int64.self) }))
                // Unreachable: the jobs' rows are locked since their leases were checked.
                if let stale = zip(assembly.completions, recorded).first(where: { !$0.1 }) { throw JobQueueRules.staleLease(stale.0.claim) }
            }
            // Once for whatever this commit queued (a notification without a new job only
            // makes idle workers look).
            try await Self.notifyJobArrival(tx)
            return (assembly.ends, enqueued)
        }
        await noteEnqueued(enqueued)
        return ends
    }
}
