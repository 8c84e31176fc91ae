import Foundation
import GRDB
import StenoCore

extension SQLiteCatalog: RecordingStore {
    public func pathState(_ path: String) async throws -> PathState? {
        try await writer.read { db in
            try Row.fetchOne(
                db, sql: "SELECT recording_id, size, mtime, is_present FROM recording_paths WHERE path = ?", arguments: [path]
            ).map(Self.pathState)
        }
    }

    public func presentPaths() async throws -> [String: PathState] {
        try await writer.read { db in
            var states: [String: PathState] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT path, recording_id, size, mtime, is_present FROM recording_paths WHERE is_present = 1")
            while let row = try rows.next() { states[row["path"]] = Self.pathState(row) }
            return states
        }
    }

    public func recordIngest(_ ingest: IngestRecord) async throws -> Recording {
        try await writer.write { db in
            let id = try Self.recordIngest(ingest, in: db)
            return try Self.fetchRecordings(db, whereSQL: "r.id = ?", arguments: [id], withTranscript: true)[0]
        }
    }

    public func markPathGone(_ path: String, now: Date) async throws -> Recording? {
        try await writer.write { db in
            guard let id = try Int64.fetchOne(
                db, sql: "SELECT recording_id FROM recording_paths WHERE path = ? AND is_present = 1", arguments: [path])
            else { return nil }
            let nowMilliseconds = Self.milliseconds(now)
            let otherPathPresent = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM recording_paths WHERE recording_id = ? AND is_present = 1 AND path != ?", arguments: [id, path]) ?? false
            if otherPathPresent {
                // The recording lives on elsewhere (a rename, or one of two copies): forget this path.
                try db.execute(sql: "DELETE FROM recording_paths WHERE path = ?", arguments: [path])
            } else {
                // Keep the last known location of a missing recording.
                try db.execute(
                    sql: "UPDATE recording_paths SET is_present = 0, last_seen_at = ? WHERE path = ?", arguments: [nowMilliseconds, path])
                try Self.markMissingIfNoPathRemains(db, recordingID: id, now: nowMilliseconds)
            }
            return try Self.fetchRecordings(db, whereSQL: "r.id = ?", arguments: [id], withTranscript: false).first
        }
    }

    public func recordings(_ query: RecordingQuery) async throws -> [Recording] {
        try await writer.read { db in
            var conditions = ["r.id > ?"]
            var arguments: StatementArguments = [query.afterID ?? 0]
            if let owner = query.ownerID {
                conditions.append("r.owner_id = ?")
                _ = arguments.append(contentsOf: [owner])
            }
            if let visible = query.visibleTo {
                conditions.append(Self.recordingVisibleToPositionalUser)
                _ = arguments.append(contentsOf: [visible])
            }
            if let status = query.status {
                conditions.append("r.status = ?")
                _ = arguments.append(contentsOf: [status.rawValue])
            }
            if let from = query.from {
                conditions.append("r.recorded_at >= ?")
                _ = arguments.append(contentsOf: [Self.milliseconds(from)])
            }
            if let to = query.to {
                conditions.append("r.recorded_at < ?")
                _ = arguments.append(contentsOf: [Self.milliseconds(to)])
            }
            return try Self.fetchRecordings(
                db, whereSQL: conditions.joined(separator: " AND "), arguments: arguments, withTranscript: false,
                limit: query.limit)
        }
    }

    public func recording(id: Int64, visibleTo userID: Int64?) async throws -> Recording {
        try await writer.read { db in
            var sql = "r.id = ?"
            var arguments: StatementArguments = [id]
            if let userID {
                sql += " AND " + Self.recordingVisibleToPositionalUser
                _ = arguments.append(contentsOf: [userID])
            }
            guard let recording = try Self.fetchRecordings(db, whereSQL: sql, arguments: arguments, withTranscript: true).first else {
                throw StoreError.notFound(entity: "recording", reference: String(id))
            }
            return recording
        }
    }
}

// MARK: - Helpers

extension SQLiteCatalog {
    static func pathState(_ row: Row) -> PathState {
        PathState(recordingID: row["recording_id"], size: row["size"] ?? 0, modifiedMilliseconds: row["mtime"] ?? 0, isPresent: row["is_present"])
    }

    /// Stores the outcome of reading one file inside the caller's transaction (see
    /// `recordIngest(_:)`); returns the recording's id. Cached statements throughout: the
    /// ingest path runs this thousands of times in a row.
    static func recordIngest(_ ingest: IngestRecord, in db: Database) throws -> Int64 {
        let now = milliseconds(ingest.now)
        let previousOwnerOfPath = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT recording_id FROM recording_paths WHERE path = ?"), arguments: [ingest.path])
        // Same content seen before: one recording, one more path.
        var target: Int64?
        if let hash = ingest.contentHash {
            target = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM recordings WHERE content_hash = ?"), arguments: [hash])
        } else if let previous = previousOwnerOfPath,
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT content_hash IS NULL FROM recordings WHERE id = ?"), arguments: [previous]) == true
        {
            target = previous
        }
        let id: Int64
        if let existing = target {
            id = existing
            try updateRecording(db, id: id, with: ingest, now: now)
        } else {
            id = try insertRecording(db, with: ingest, now: now)
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO recording_paths (path, recording_id, size, mtime, is_present, first_seen_at, last_seen_at)
                VALUES (?, ?, ?, ?, 1, ?, ?)
                ON CONFLICT(path) DO UPDATE SET recording_id = excluded.recording_id, size = excluded.size,
                    mtime = excluded.mtime, is_present = 1, last_seen_at = excluded.last_seen_at
                """
        ).execute(arguments: [ingest.path, id, ingest.size, milliseconds(ingest.modified), now, now])
        // A file that moved: the old, vanished path of this recording is superseded.
        try db.cachedStatement(sql: "DELETE FROM recording_paths WHERE recording_id = ? AND is_present = 0 AND path != ?")
            .execute(arguments: [id, ingest.path])
        // The path held other content before (overwritten in place): that recording may be gone now.
        if let previous = previousOwnerOfPath, previous != id {
            try markMissingIfNoPathRemains(db, recordingID: previous, now: now)
        }
        return id
    }

    static func insertRecording(_ db: Database, with ingest: IngestRecord, now: Int64) throws -> Int64 {
        try db.cachedStatement(
            sql: "INSERT INTO recordings (content_hash, owner_id, size, status, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?)"
        ).execute(arguments: [ingest.contentHash, ingest.ownerID, ingest.size, now, now])
        let id = db.lastInsertedRowID
        try updateRecording(db, id: id, with: ingest, now: now)
        return id
    }

    /// Writes what this read found; the first known owner is kept.
    static func updateRecording(_ db: Database, id: Int64, with ingest: IngestRecord, now: Int64) throws {
        switch ingest.outcome {
        case .ready(let metadata):
            try db.cachedStatement(
                sql: """
                    UPDATE recordings SET owner_id = COALESCE(owner_id, ?), size = ?, format = ?, codec = ?, duration = ?,
                        sample_rate = ?, channels = ?, recorded_at = ?, recorded_at_source = ?, title = ?,
                        ical_uid_hint = ?, event_id_hint = ?, provider_hint = ?, sidecar = ?, transcript = ?,
                        status = 'ready', failure_reason = NULL, updated_at = ?
                    WHERE id = ?
                    """
            ).execute(
                arguments: [
                    ingest.ownerID, ingest.size, metadata.format, metadata.codec, metadata.duration,
                    metadata.sampleRate, metadata.channels, metadata.recordedAt.map(milliseconds),
                    metadata.recordedAtSource?.rawValue, metadata.title, metadata.iCalUIDHint, metadata.eventIDHint,
                    metadata.providerHint, metadata.sidecarJSON, metadata.transcript, now, id,
                ])
        case .failed(let reason):
            try db.cachedStatement(
                sql: """
                    UPDATE recordings SET owner_id = COALESCE(owner_id, ?), size = ?, status = 'failed', failure_reason = ?,
                        updated_at = ? WHERE id = ?
                    """
            ).execute(arguments: [ingest.ownerID, ingest.size, reason, now, id])
        }
    }

    static func markMissingIfNoPathRemains(_ db: Database, recordingID: Int64, now: Int64) throws {
        try db.cachedStatement(
            sql: """
                UPDATE recordings SET status = 'missing', updated_at = ?
                WHERE id = ? AND status != 'missing'
                  AND NOT EXISTS (SELECT 1 FROM recording_paths WHERE recording_id = ? AND is_present = 1)
                """
        ).execute(arguments: [now, recordingID, recordingID])
    }

    static func fetchRecordings(
        _ db: Database, whereSQL: String, arguments: StatementArguments, withTranscript: Bool, limit: Int? = nil
    ) throws -> [Recording] {
        var sql = """
            SELECT r.*, u.name AS owner_name FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
            WHERE \(whereSQL) ORDER BY r.id
            """
        if let limit { sql += " LIMIT \(max(0, limit))" }
        return try recordingsWithPaths(db, rows: Row.fetchAll(db, sql: sql, arguments: arguments), withTranscript: withTranscript)
    }

    /// Recordings by id, with transcripts, through cached statements (the ids go in as one
    /// JSON array): preparing a statement per call costs more than reading a batch's rows.
    static func fetchRecordings(_ db: Database, ids: [Int64]) throws -> [Recording] {
        guard !ids.isEmpty else { return [] }
        let statement = try db.cachedStatement(
            sql: """
                SELECT r.*, u.name AS owner_name FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
                WHERE r.id IN (SELECT value FROM json_each(?)) ORDER BY r.id
                """)
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return try recordingsWithPaths(db, rows: Row.fetchAll(statement, arguments: [list]), withTranscript: true)
    }

    /// Recordings from `SELECT r.*, owner_name` rows, with their paths.
    private static func recordingsWithPaths(_ db: Database, rows: [Row], withTranscript: Bool) throws -> [Recording] {
        var recordings = rows.map { row in
            Recording(
                id: row["id"], contentHash: row["content_hash"], ownerID: row["owner_id"], ownerName: row["owner_name"],
                size: row["size"], format: row["format"], codec: row["codec"], duration: row["duration"],
                sampleRate: row["sample_rate"], channels: row["channels"],
                recordedAt: (row["recorded_at"] as Int64?).map(date(milliseconds:)),
                recordedAtSource: (row["recorded_at_source"] as String?).flatMap(RecordedAtSource.init(rawValue:)),
                title: row["title"], iCalUIDHint: row["ical_uid_hint"], eventIDHint: row["event_id_hint"],
                providerHint: row["provider_hint"], transcript: withTranscript ? row["transcript"] : nil,
                status: RecordingStatus(rawValue: row["status"]) ?? .pending, failureReason: row["failure_reason"],
                createdAt: date(milliseconds: row["created_at"]), updatedAt: date(milliseconds: row["updated_at"]))
        }
        guard !recordings.isEmpty else { return [] }
        let ids = recordings.map(\.id)
        var paths: [Int64: [RecordingPath]] = [:]
        let statement = try db.cachedStatement(
            sql: """
                SELECT recording_id, path, is_present FROM recording_paths
                WHERE recording_id IN (SELECT value FROM json_each(?)) ORDER BY is_present DESC, path
                """)
        for row in try Row.fetchAll(statement, arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]"]) {
            paths[row["recording_id"], default: []].append(RecordingPath(path: row["path"], isPresent: row["is_present"]))
        }
        for index in recordings.indices { recordings[index].paths = paths[recordings[index].id] ?? [] }
        return recordings
    }
}
