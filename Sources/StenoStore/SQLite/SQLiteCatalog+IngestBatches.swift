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
        _ items: [FencedIngest], jobResult: @escaping @Sendable (Recording) -> String?,
        followUps: @escaping @Sendable ([Recording]) -> [JobDraft], now: Date
    ) async throws -> [FencedIngestResult] {
        guard !items.isEmpty else { return [] }
        let nowMilliseconds = Self.milliseconds(now)
        return try await writer.write { db in
            // Nothing can claim a job between this check and the completion below: both are
            // in this one write transaction.
            var recordingIDs: [Int64?] = []
            recordingIDs.reserveCapacity(items.count)
            for item in items {
                guard try Self.holdsLease(item.claim, in: db) else {
                    recordingIDs.append(nil)
                    continue
                }
                recordingIDs.append(try Self.recordIngest(item.record, in: db))
            }
            let ids = Array(Set(recordingIDs.compactMap { $0 })).sorted()
            try Self.refreshRecordingSearch(db, ids: ids)
            var recordings: [Int64: Recording] = [:]
            for recording in try Self.fetchRecordings(db, ids: ids) { recordings[recording.id] = recording }
            var results: [FencedIngestResult] = []
            results.reserveCapacity(items.count)
            var stored: [Recording] = []
            for (item, id) in zip(items, recordingIDs) {
                guard let id, let recording = recordings[id] else {
                    results.append(.staleLease)
                    continue
                }
                let result = jobResult(recording)
                if let result { try Self.requireJSON(result, in: db, what: "result") }
                guard try Self.completeClaim(item.claim, result: result, nowMilliseconds: nowMilliseconds, in: db) else {
                    // Unreachable: the lease was checked in this transaction.
                    throw Self.staleLease(item.claim)
                }
                results.append(.recorded(recording))
                stored.append(recording)
            }
            // Queued with the outcomes they follow from: none is lost to a crash in between.
            for draft in followUps(stored) { _ = try Self.enqueue(draft, in: db, now: now) }
            return results
        }
    }
}
