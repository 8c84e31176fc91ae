import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog: RecordingDeletionStore {
    public func markForDeletion(_ request: DeletionRequest, job: JobDraft?) async throws -> MarkedDeletion {
        let now = Self.milliseconds(request.now)
        return try await writer.write { db in
            let ids = try Int64.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id FROM recordings
                        WHERE id IN (SELECT value FROM json_each(?)) AND id NOT IN (SELECT recording_id FROM recording_holds)
                        ORDER BY id
                        """),
                arguments: [Self.jsonArray(request.recordingIDs)])
            guard !ids.isEmpty else { return MarkedDeletion(recordingIDs: [], job: nil) }
            let list = Self.jsonArray(ids)
            try db.cachedStatement(
                sql: """
                    INSERT INTO recording_deletions (recording_id, requested_at, requested_by, with_files, archive_dir)
                    SELECT value, ?, ?, ?, ? FROM json_each(?) WHERE true
                    ON CONFLICT (recording_id) DO NOTHING
                    """
            ).execute(arguments: [now, request.requestedBy, request.withFiles, request.archiveDirectory, list])
            if request.remembersContent {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO deleted_contents (content_hash, deleted_at, deleted_by)
                        SELECT content_hash, ?, ? FROM recordings
                        WHERE id IN (SELECT value FROM json_each(?)) AND content_hash IS NOT NULL
                        ON CONFLICT (content_hash) DO NOTHING
                        """
                ).execute(arguments: [now, request.requestedBy, list])
            }
            if let access = request.accessDraft(marked: ids) { try Self.logAccess(access, in: db) }
            return MarkedDeletion(recordingIDs: ids, job: try job.map { try Self.enqueue($0, in: db, now: request.now).job })
        }
    }

    public func pendingDeletions(ids: [Int64]?, afterID: Int64, limit: Int) async throws -> [PendingDeletion] {
        try await writer.read { db in
            let marks = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT recording_id, with_files, archive_dir FROM recording_deletions
                        WHERE recording_id > ? AND (? IS NULL OR recording_id IN (SELECT value FROM json_each(?)))
                        ORDER BY recording_id LIMIT ?
                        """),
                arguments: [afterID, ids.map { _ in 1 }, ids.map { Self.jsonArray($0) } ?? "[]", limit])
            guard !marks.isEmpty else { return [] }
            var paths: [Int64: [String]] = [:]
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: "SELECT recording_id, path FROM recording_paths WHERE recording_id IN (SELECT value FROM json_each(?)) ORDER BY path"),
                arguments: [Self.jsonArray(marks.map { $0["recording_id"] as Int64 })])
            while let row = try rows.next() { paths[row["recording_id"], default: []].append(row["path"]) }
            return marks.map { mark in
                let id: Int64 = mark["recording_id"]
                return PendingDeletion(recordingID: id, withFiles: mark["with_files"], archiveDirectory: mark["archive_dir"], paths: paths[id] ?? [])
            }
        }
    }

    public func finishDeletions(_ ids: [Int64]) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await writer.write { db in
            // Paths, the link and its attendees, link history and the deletion mark go by their
            // foreign keys; the search row by the `recordings_search_delete` trigger.
            try db.cachedStatement(
                sql: "DELETE FROM recordings WHERE id IN (SELECT recording_id FROM recording_deletions WHERE recording_id IN (SELECT value FROM json_each(?)))"
            ).execute(arguments: [Self.jsonArray(ids)])
            return db.changesCount
        }
    }

    public func missingRecordings(before cutoff: Date, limit: Int) async throws -> [Int64] {
        try await writer.read { db in
            try Int64.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id FROM recordings
                        WHERE status = 'missing' AND updated_at < ?
                          AND id NOT IN (SELECT recording_id FROM recording_deletions) AND id NOT IN (SELECT recording_id FROM recording_holds)
                        ORDER BY id LIMIT ?
                        """),
                arguments: [Self.milliseconds(cutoff), limit])
        }
    }

    public func deletedContents(_ hashes: [String]) async throws -> [String: DeletedContent] {
        guard !hashes.isEmpty else { return [:] }
        return try await writer.read { db in try Self.deletedContents(hashes, in: db) }
    }

    /// The remembered deletions of `hashes`, inside the caller's transaction.
    static func deletedContents(_ hashes: [String], in db: Database) throws -> [String: DeletedContent] {
        guard !hashes.isEmpty else { return [:] }
        var found: [String: DeletedContent] = [:]
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT content_hash, deleted_at, deleted_by FROM deleted_contents WHERE content_hash IN (SELECT value FROM json_each(?))"),
            arguments: [jsonArray(hashes)])
        while let row = try rows.next() {
            let hash: String = row["content_hash"]
            found[hash] = DeletedContent(contentHash: hash, deletedAt: date(milliseconds: row["deleted_at"]), deletedBy: row["deleted_by"])
        }
        return found
    }

    public func forgetDeletedContents(_ hashes: [String]) async throws -> [String] {
        guard !hashes.isEmpty else { return [] }
        return try await writer.write { db in
            try String.fetchAll(
                db.cachedStatement(
                    sql: "DELETE FROM deleted_contents WHERE content_hash IN (SELECT value FROM json_each(?)) RETURNING content_hash"),
                arguments: [Self.jsonArray(hashes)]
            ).sorted()
        }
    }
}
