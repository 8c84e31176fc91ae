import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

extension PostgresCatalog: RetentionStore {
    public func retentionCandidates(agedBefore cutoff: Date, afterID: Int64, limit: Int) async throws -> [RetentionCandidate] {
        try await transaction { tx in
            let rows = try await tx.rows(
                .numbered(CatalogSQL.retentionCandidates(agedBefore: "$1", afterID: "$2", limit: "$3"), [Self.milliseconds(cutoff), afterID, Int64(limit)])
            ).map { try $0.decode((Int64, String?, Int64, String?).self) }
            guard !rows.isEmpty else { return [] }
            var paths: [Int64: [String]] = [:]
            for row in try await tx.rows(
                "SELECT recording_id, path FROM recording_paths WHERE recording_id = ANY(\(rows.map(\.0))::bigint[]) ORDER BY path")
            {
                let (id, path) = try row.decode((Int64, String).self)
                paths[id, default: []].append(path)
            }
            return rows.map { RetentionCandidate(recordingID: $0.0, title: $0.3, ownerName: $0.1, agedFrom: Self.date(milliseconds: $0.2), paths: paths[$0.0] ?? []) }
        }
    }

    public func hold(_ ids: [Int64], by holder: String, reason: String?, now: Date) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try await transaction { tx in
            // Locked: a deletion marking these recordings waits, then finds them held.
            let existing = try await tx.rows("SELECT id FROM recordings WHERE id = ANY(\(ids)::bigint[]) ORDER BY id FOR UPDATE")
                .map { try $0.decode(Int64.self) }
            try await tx.execute(
                """
                INSERT INTO recording_holds (recording_id, held_at, held_by, reason)
                SELECT id, \(Self.milliseconds(now)), \(holder), \(reason) FROM unnest(\(existing)::bigint[]) AS id
                ON CONFLICT (recording_id) DO NOTHING
                """)
            return existing
        }
    }

    public func releaseHolds(_ ids: [Int64]) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try await rows("DELETE FROM recording_holds WHERE recording_id = ANY(\(ids)::bigint[]) RETURNING recording_id")
            .map { try $0.decode(Int64.self) }.sorted()
    }

    public func holds(ids: [Int64]?) async throws -> [RecordingHold] {
        try await rows(.numbered(CatalogSQL.holds(all: "$1::boolean", ids: "SELECT unnest($2::bigint[])"), [ids == nil, ids ?? []]))
            .map { row in
                let (id, at, by, reason) = try row.decode((Int64, Int64, String, String?).self)
                return RecordingHold(recordingID: id, heldAt: Self.date(milliseconds: at), heldBy: by, reason: reason)
            }
    }
}
