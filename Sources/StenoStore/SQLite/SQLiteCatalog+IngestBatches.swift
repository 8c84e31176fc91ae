import Foundation
import GRDB
import StenoCore

extension SQLiteCatalog: IngestBatchStore {
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

    public func recordIngests(
        _ items: [FencedIngest], jobResult: @escaping @Sendable (ClaimedJob, [Recording]) -> String?,
        followUps: @escaping @Sendable ([Recording]) -> [JobDraft], now: Date
    ) async throws -> [FencedIngestResult] {
        guard !items.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            // The items of each job, in order; each job's lease checked once. Nothing can claim a
            // job between this check and the completion below: both are in this transaction.
            var claims: [ClaimedJob] = []
            var itemsOfJob: [Int64: [Int]] = [:]
            for (index, item) in items.enumerated() {
                if itemsOfJob[item.claim.job.id] == nil { claims.append(item.claim) }
                itemsOfJob[item.claim.job.id, default: []].append(index)
            }
            var held: Set<Int64> = []
            for claim in claims where try Self.holdsLease(claim, in: db) { held.insert(claim.job.id) }
            var recordingIDs = [Int64?](repeating: nil, count: items.count)
            for (index, item) in items.enumerated() where held.contains(item.claim.job.id) {
                recordingIDs[index] = try Self.recordIngest(item.record, in: db)
            }
            let ids = Array(Set(recordingIDs.compactMap { $0 })).sorted()
            try Self.refreshRecordingSearch(db, ids: ids)
            var recordings: [Int64: Recording] = [:]
            for recording in try Self.fetchRecordings(db, ids: ids) { recordings[recording.id] = recording }
            var results = [FencedIngestResult](repeating: .staleLease, count: items.count)
            var stored: [Recording] = []
            for claim in claims where held.contains(claim.job.id) {
                let indices = itemsOfJob[claim.job.id] ?? []
                let ofJob = indices.compactMap { recordingIDs[$0].flatMap { recordings[$0] } }
                guard ofJob.count == indices.count else {
                    throw StoreError.failedPrecondition("a recording of job \(claim.job.id) was stored but cannot be read back")
                }
                let result = jobResult(claim, ofJob)
                if let result { try Self.requireJSON(result, in: db, what: "result") }
                guard try Self.completeClaim(claim, result: result, nowMilliseconds: nowMilliseconds, in: db) else {
                    // Unreachable: the lease was checked in this transaction.
                    throw Self.staleLease(claim)
                }
                for (index, recording) in zip(indices, ofJob) { results[index] = .recorded(recording) }
                stored += ofJob
            }
            // Queued with the outcomes they follow from: none is lost to a crash in between.
            for draft in followUps(stored) { _ = try Self.enqueue(draft, in: db, now: now) }
            return results
        }
    }
}
