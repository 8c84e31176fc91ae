import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

extension PostgresCatalog: RecordingDeletionStore {
    public func markForDeletion(_ request: DeletionRequest, job: JobDraft?) async throws -> MarkedDeletion {
        let now = Self.milliseconds(request.now)
        return try await transaction { tx in
            // Locked: an ingest attaching a path, or a second deletion, waits for this one.
            let ids = try await tx.rows(
                """
                SELECT id FROM recordings
                WHERE id = ANY(\(request.recordingIDs)::bigint[])
                  AND NOT EXISTS (SELECT 1 FROM recording_holds h WHERE h.recording_id = recordings.id)
                ORDER BY id FOR UPDATE
                """
            ).map { try $0.decode(Int64.self) }
            guard !ids.isEmpty else { return MarkedDeletion(recordingIDs: [], job: nil) }
            try await tx.execute(
                """
                INSERT INTO recording_deletions (recording_id, requested_at, requested_by, with_files, archive_dir)
                SELECT id, \(now), \(request.requestedBy), \(request.withFiles), \(request.archiveDirectory) FROM unnest(\(ids)::bigint[]) AS id
                ON CONFLICT (recording_id) DO NOTHING
                """)
            if request.remembersContent {
                try await tx.execute(
                    """
                    INSERT INTO deleted_contents (content_hash, deleted_at, deleted_by)
                    SELECT content_hash, \(now), \(request.requestedBy) FROM recordings
                    WHERE id = ANY(\(ids)::bigint[]) AND content_hash IS NOT NULL
                    ON CONFLICT (content_hash) DO NOTHING
                    """)
            }
            if let access = request.accessDraft(marked: ids) { try await tx.execute(Self.logAccessStatement(access)) }
            var queued: Job?
            if let job { queued = try await Self.enqueue(job, in: tx, now: request.now).job }
            return MarkedDeletion(recordingIDs: ids, job: queued)
        }
    }

    public func pendingDeletions(ids: [Int64]?, afterID: Int64, limit: Int) async throws -> [PendingDeletion] {
        try await transaction { tx in
            let marks = try await tx.rows(
                """
                SELECT recording_id, with_files, archive_dir FROM recording_deletions
                WHERE recording_id > \(afterID) AND (\(ids == nil) OR recording_id = ANY(\(ids ?? [])::bigint[]))
                ORDER BY recording_id LIMIT \(limit)
                """
            ).map { try $0.decode((Int64, Bool, String?).self) }
            guard !marks.isEmpty else { return [] }
            var paths: [Int64: [String]] = [:]
            for row in try await tx.rows(
                "SELECT recording_id, path FROM recording_paths WHERE recording_id = ANY(\(marks.map(\.0))::bigint[]) ORDER BY path")
            {
                let (id, path) = try row.decode((Int64, String).self)
                paths[id, default: []].append(path)
            }
            return marks.map { PendingDeletion(recordingID: $0.0, withFiles: $0.1, archiveDirectory: $0.2, paths: paths[$0.0] ?? []) }
        }
    }

    public func finishDeletions(_ ids: [Int64]) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        // Paths, the link and its attendees, link history, the search row and the deletion
        // mark go by their foreign keys.
        return try await rows(
            """
            DELETE FROM recordings WHERE id IN (SELECT recording_id FROM recording_deletions WHERE recording_id = ANY(\(ids)::bigint[]))
            RETURNING id
            """
        ).count
    }

    public func missingRecordings(before cutoff: Date, limit: Int) async throws -> [Int64] {
        try await rows(
            """
            SELECT id FROM recordings
            WHERE status = 'missing' AND updated_at < \(Self.milliseconds(cutoff))
              AND NOT EXISTS (SELECT 1 FROM recording_deletions d WHERE d.recording_id = recordings.id)
              AND NOT EXISTS (SELECT 1 FROM recording_holds h WHERE h.recording_id = recordings.id)
            ORDER BY id LIMIT \(limit)
            """
        ).map { try $0.decode(Int64.self) }
    }

    public func deletedContents(_ hashes: [String]) async throws -> [String: DeletedContent] {
        guard !hashes.isEmpty else { return [:] }
        return try await transaction { tx in try await Self.deletedContents(hashes, in: tx) }
    }

    /// The remembered deletions of `hashes`, inside the caller's transaction.
    static func deletedContents(_ hashes: [String], in tx: PostgresTransaction) async throws -> [String: DeletedContent] {
        guard !hashes.isEmpty else { return [:] }
        var found: [String: DeletedContent] = [:]
        for row in try await tx.rows(
            "SELECT content_hash, deleted_at, deleted_by FROM deleted_contents WHERE content_hash = ANY(\(hashes)::text[])")
        {
            let (hash, at, by) = try row.decode((String, Int64, String).self)
            found[hash] = DeletedContent(contentHash: hash, deletedAt: date(milliseconds: at), deletedBy: by)
        }
        return found
    }

    public func forgetDeletedContents(_ hashes: [String]) async throws -> [String] {
        guard !hashes.isEmpty else { return [] }
        return try await rows("DELETE FROM deleted_contents WHERE content_hash = ANY(\(hashes)::text[]) RETURNING content_hash")
            .map { try $0.decode(String.self) }.sorted()
    }
}
