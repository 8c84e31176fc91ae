import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog: RetentionStore {
    public func retentionCandidates(agedBefore cutoff: Date, afterID: Int64, limit: Int) async throws -> [RetentionCandidate] {
        try await writer.read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: CatalogSQL.retentionCandidates(agedBefore: "?", afterID: "?", limit: "?")),
                arguments: [Self.milliseconds(cutoff), afterID, limit])
            guard !rows.isEmpty else { return [] }
            var paths: [Int64: [String]] = [:]
            let pathRows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: "SELECT recording_id, path FROM recording_paths WHERE recording_id IN (SELECT value FROM json_each(?)) ORDER BY path"),
                arguments: [Self.jsonArray(rows.map { $0[0] as Int64 })])
            while let row = try pathRows.next() { paths[row[0], default: []].append(row[1]) }
            return rows.map { row in
                let id: Int64 = row[0]
                return RetentionCandidate(recordingID: id, title: row[3], ownerName: row[1], agedFrom: Self.date(milliseconds: row[2]), paths: paths[id] ?? [])
            }
        }
    }

    public func hold(_ ids: [Int64], by holder: String, reason: String?, now: Date) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try await writer.write { db in
            let existing = try Int64.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM recordings WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id"),
                arguments: [Self.jsonArray(ids)])
            try db.cachedStatement(
                sql: """
                    INSERT INTO recording_holds (recording_id, held_at, held_by, reason)
                    SELECT value, ?, ?, ? FROM json_each(?) WHERE true
                    ON CONFLICT (recording_id) DO NOTHING
                    """
            ).execute(arguments: [Self.milliseconds(now), holder, reason, Self.jsonArray(existing)])
            return existing
        }
    }

    public func releaseHolds(_ ids: [Int64]) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try await writer.write { db in
            try Int64.fetchAll(
                db.cachedStatement(sql: "DELETE FROM recording_holds WHERE recording_id IN (SELECT value FROM json_each(?)) RETURNING recording_id"),
                arguments: [Self.jsonArray(ids)]
            ).sorted()
        }
    }

    public func holds(ids: [Int64]?) async throws -> [RecordingHold] {
        try await writer.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: CatalogSQL.holds(all: "?", ids: "SELECT value FROM json_each(?)")),
                arguments: [ids == nil, Self.jsonArray(ids ?? [])]
            ).map { RecordingHold(recordingID: $0[0], heldAt: Self.date(milliseconds: $0[1]), heldBy: $0[2], reason: $0[3]) }
        }
    }
}
