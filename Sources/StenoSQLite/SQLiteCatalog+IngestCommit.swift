import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog {
    public func pathStates(_ paths: [String]) async throws -> [String: PathState] {
        guard !paths.isEmpty else { return [:] }
        return try await writer.read { db in
            // One statement for any count: the paths go in as a JSON array.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT path, recording_id, size, mtime, is_present FROM recording_paths
                    WHERE path IN (SELECT value FROM json_each(?))
                    """)
            var states: [String: PathState] = [:]
            let rows = try Row.fetchCursor(statement, arguments: [Self.jsonArray(paths)])
            while let row = try rows.next() { states[row["path"]] = Self.pathState(row) }
            return states
        }
    }

    public func commitIngest(_ commit: IngestCommit, now: Date) async throws -> [IngestCommit.JobEnd] {
        guard !commit.jobs.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            // Content deleted from the catalog is not catalogued again; checked in the writing
            // transaction, so a deletion committing meanwhile is seen.
            let commit = commit.ignoringDeletedContents(try Self.deletedContents(commit.recordedContentHashes, in: db))
            // Each job's lease checked once. Nothing can claim a job between this check and its
            // completion below: both are in this transaction. Every job is written before any
            // is completed.
            var written = [[IngestCommit.Written?]?](repeating: nil, count: commit.jobs.count)
            var recordingIDs: [Int64] = []
            for (index, job) in commit.jobs.enumerated() where try Self.holdsLease(job.claim, in: db) {
                written[index] = try job.files.map { file -> IngestCommit.Written? in
                    switch file.action {
                    case .record(let record):
                        recordingIDs.append(try Self.recordIngest(record, in: db))
                        return nil
                    case .markGone:
                        return .gone(try Self.markPathGone(file.path, nowMilliseconds: nowMilliseconds, in: db))
                    case .ignore(let reason):
                        return .ignored(reason: reason)
                    case .companion(let recordings):
                        return .companion(of: recordings)
                    case .retryAlone(let draft):
                        return .retried(jobID: try Self.enqueue(draft, in: db, now: now).job.id)
                    }
                }
                // Queued with the outcomes they follow from (none is lost to a crash in between),
                // while the commit's jobs still run: a recording whose own job is in this commit
                // keeps that one live job, which reads its sidecar anyway.
                for draft in job.followUps { _ = try Self.enqueue(draft, in: db, now: now) }
            }
            let ids = Array(Set(recordingIDs)).sorted()
            try Self.refreshRecordingSearch(db, ids: ids)
            var recordings: [Int64: Recording] = [:]
            for recording in try Self.fetchRecordings(db, ids: ids) { recordings[recording.id] = recording }
            var assembly = try commit.assemble(written: written, storedIDs: recordingIDs, recordings: recordings)
            if let draft = commit.linking?.draft(recordingIDs: assembly.ready) {
                assembly.noteLinkJob(try Self.enqueue(draft, in: db, now: now).job.id)
            }
            for completion in assembly.completions {
                guard try Self.completeClaim(completion.claim, result: completion.result, nowMilliseconds: nowMilliseconds, in: db) else {
                    // Unreachable: the lease was checked in this transaction.
                    throw Self.staleLease(completion.claim)
                }
            }
            return assembly.ends
        }
    }
}
