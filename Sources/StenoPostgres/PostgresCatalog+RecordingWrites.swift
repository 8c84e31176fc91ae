import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Storing what reading a file found, and forgetting paths that are gone, inside the caller's
/// transaction. Daemons may ingest at once: the path's row is locked while its ingest runs,
/// new content is inserted with `ON CONFLICT (content_hash) DO NOTHING` (a concurrent insert of
/// the same bytes makes this one find that recording instead), and a recording whose fields
/// are rewritten is locked first.
extension PostgresCatalog {
    /// Stores one ingest; returns the recording's id. The caller refreshes its search index
    /// (``refreshRecordingSearch(_:ids:)``).
    static func recordIngest(_ ingest: IngestRecord, in tx: PostgresTransaction) async throws -> Int64 {
        let now = milliseconds(ingest.now)
        let previousOwnerOfPath = try await tx.row(
            "SELECT recording_id FROM recording_paths WHERE path = \(ingest.path) FOR UPDATE"
        ).map { try $0.decode(Int64.self) }
        var chosen: (id: Int64, isNew: Bool)?
        for step in IngestRecordChoice.steps(hasContentHash: ingest.contentHash != nil) where chosen == nil {
            switch step {
            case .adoptHashless:
                if let adopted = try await hashlessRecordingAdopting(tx, ingest, previousOwnerOfPath: previousOwnerOfPath) {
                    try await updateRecording(tx, id: adopted, with: ingest, now: now)
                    chosen = (adopted, false)
                }
            case .insert:
                chosen = try await insertRecording(tx, with: ingest, now: now).map { ($0, true) }
            case .attachToExisting:
                if let target = try await existingRecording(tx, for: ingest, previousOwnerOfPath: previousOwnerOfPath) {
                    let owner = try await tx.row("SELECT owner_id FROM recordings WHERE id = \(target) FOR UPDATE")
                        .map { try $0.decode(Int64?.self) }
                    if let owner, IngestRecordChoice.updatesExisting(owner: owner, ingestOwner: ingest.ownerID) {
                        try await updateRecording(tx, id: target, with: ingest, now: now)
                    }
                    chosen = (target, false)
                }
            }
        }
        guard let (id, isNew) = chosen else { throw IngestRecordChoice.noRecording(path: ingest.path) }
        try await tx.execute(
            """
            INSERT INTO recording_paths (path, recording_id, size, mtime, is_present, first_seen_at, last_seen_at)
            VALUES (\(ingest.path), \(id), \(ingest.size), \(milliseconds(ingest.modified)), TRUE, \(now), \(now))
            ON CONFLICT (path) DO UPDATE SET recording_id = excluded.recording_id, size = excluded.size,
                mtime = excluded.mtime, is_present = TRUE, last_seen_at = excluded.last_seen_at
            """)
        for cleanup in IngestRecordChoice.cleanups(id: id, isNew: isNew, previousOwnerOfPath: previousOwnerOfPath) {
            switch cleanup {
            case .dropVanishedPaths:
                try await tx.execute(
                    "DELETE FROM recording_paths WHERE recording_id = \(id) AND NOT is_present AND path <> \(ingest.path)")
            case .markMissingIfNoPathRemains(let previous):
                try await markMissingIfNoPathRemains(tx, recordingID: previous, now: now)
            }
        }
        return id
    }

    /// Marks the file at `path` gone: its recording becomes `missing` when no path remains.
    static func markPathGone(_ path: String, nowMilliseconds: Int64, in tx: PostgresTransaction) async throws -> Recording? {
        guard
            let id = try await tx.row(
                "SELECT recording_id FROM recording_paths WHERE path = \(path) AND is_present FOR UPDATE"
            ).map({ try $0.decode(Int64.self) })
        else { return nil }
        let otherPathPresent =
            try await tx.row(
                "SELECT 1 FROM recording_paths WHERE recording_id = \(id) AND is_present AND path <> \(path)") != nil
        if otherPathPresent {
            // The recording lives on elsewhere (a rename, or one of two copies): forget this path.
            try await tx.execute("DELETE FROM recording_paths WHERE path = \(path)")
        } else {
            // Keep the last known location of a missing recording.
            try await tx.execute("UPDATE recording_paths SET is_present = FALSE, last_seen_at = \(nowMilliseconds) WHERE path = \(path)")
            try await markMissingIfNoPathRemains(tx, recordingID: id, now: nowMilliseconds)
        }
        return try await fetchRecordings(
            tx,
            """
            SELECT \(unescaped: recordingColumns(withTranscript: false)) FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
            WHERE r.id = \(id)
            """
        ).first
    }

    /// The recording an ingest updates: the one with its content hash, or for a file that
    /// could not be hashed, the hashless recording its path held before.
    private static func existingRecording(_ tx: PostgresTransaction, for ingest: IngestRecord, previousOwnerOfPath: Int64?) async throws -> Int64? {
        if let hash = ingest.contentHash {
            return try await tx.row("SELECT id FROM recordings WHERE content_hash = \(hash)").map { try $0.decode(Int64.self) }
        }
        guard let previous = previousOwnerOfPath else { return nil }
        return try await tx.row("SELECT id FROM recordings WHERE id = \(previous) AND content_hash IS NULL").map { try $0.decode(Int64.self) }
    }

    /// The hashless recording the ingest's path held, given the hash the file now has (when no
    /// recording has that content yet), now holding that hash: nil otherwise.
    private static func hashlessRecordingAdopting(
        _ tx: PostgresTransaction, _ ingest: IngestRecord, previousOwnerOfPath: Int64?
    ) async throws -> Int64? {
        guard let hash = ingest.contentHash, let previous = previousOwnerOfPath else { return nil }
        // One statement; a concurrent insert of the same content makes it a conflict, which
        // the transaction's retry does not cover: the ingest job fails and runs again.
        return try await tx.row(
            """
            UPDATE recordings SET content_hash = \(hash)
            WHERE id = \(previous) AND content_hash IS NULL AND NOT EXISTS (SELECT 1 FROM recordings WHERE content_hash = \(hash))
            RETURNING id
            """
        ).map { try $0.decode(Int64.self) }
    }

    /// The columns an ingest writes besides its hash, owner and size: everything read for a
    /// readable file; nothing but the status and reason for one that failed.
    struct ReadValues {
        var format: String?, codec: String?, duration: Double?, sampleRate: Int?, channels: Int?, recordedAt: Int64?
        var recordedAtSource: String?, title: String?, iCalUIDHint: String?, eventIDHint: String?, providerHint: String?
        var sidecar: String?, transcript: String?, warnings: String?, status: RecordingStatus, failureReason: String?

        init(_ metadata: RecordingMetadata) {
            (format, codec, duration, sampleRate, channels) =
                (metadata.format, metadata.codec, metadata.duration, metadata.sampleRate, metadata.channels)
            (recordedAt, recordedAtSource, title) =
                (metadata.recordedAt.map(PostgresCatalog.milliseconds), metadata.recordedAtSource?.rawValue, metadata.title)
            (iCalUIDHint, eventIDHint, providerHint) = (metadata.iCalUIDHint, metadata.eventIDHint, metadata.providerHint)
            (sidecar, transcript, warnings) = (metadata.sidecarJSON, metadata.transcript, RecordingWarningsColumn.text(metadata.warnings))
            status = .ready
        }

        init(failure reason: String) {
            status = .failed
            failureReason = reason
        }
    }

    /// Inserts a recording with everything the ingest found; nil (and nothing written) when
    /// its content hash is catalogued already.
    private static func insertRecording(_ tx: PostgresTransaction, with ingest: IngestRecord, now: Int64) async throws -> Int64? {
        let read: ReadValues
        switch ingest.outcome {
        case .ready(let metadata): read = ReadValues(metadata)
        case .failed(let reason): read = ReadValues(failure: reason)
        }
        return try await tx.row(
            """
            INSERT INTO recordings (content_hash, owner_id, size, format, codec, duration, sample_rate, channels,
                recorded_at, recorded_at_source, title, ical_uid_hint, event_id_hint, provider_hint, sidecar, transcript,
                warnings, status, failure_reason, created_at, updated_at)
            VALUES (\(ingest.contentHash), \(ingest.ownerID), \(ingest.size), \(read.format), \(read.codec), \(read.duration),
                \(read.sampleRate), \(read.channels), \(read.recordedAt), \(read.recordedAtSource), \(read.title), \(read.iCalUIDHint),
                \(read.eventIDHint), \(read.providerHint), \(read.sidecar), \(read.transcript), \(read.warnings),
                \(read.status.rawValue), \(read.failureReason), \(now), \(now))
            ON CONFLICT (content_hash) DO NOTHING
            RETURNING id
            """
        ).map { try $0.decode(Int64.self) }
    }

    /// Writes what this read found; the first known owner is kept. A failed read keeps what
    /// an earlier read found, but not its warnings.
    private static func updateRecording(_ tx: PostgresTransaction, id: Int64, with ingest: IngestRecord, now: Int64) async throws {
        switch ingest.outcome {
        case .ready(let metadata):
            let read = ReadValues(metadata)
            try await tx.execute(
                """
                UPDATE recordings SET owner_id = COALESCE(owner_id, \(ingest.ownerID)::bigint), size = \(ingest.size),
                    format = \(read.format), codec = \(read.codec), duration = \(read.duration), sample_rate = \(read.sampleRate),
                    channels = \(read.channels), recorded_at = \(read.recordedAt), recorded_at_source = \(read.recordedAtSource),
                    title = \(read.title), ical_uid_hint = \(read.iCalUIDHint), event_id_hint = \(read.eventIDHint),
                    provider_hint = \(read.providerHint), sidecar = \(read.sidecar), transcript = \(read.transcript),
                    warnings = \(read.warnings), status = 'ready', failure_reason = NULL, updated_at = \(now)
                WHERE id = \(id)
                """)
        case .failed(let reason):
            try await tx.execute(
                """
                UPDATE recordings SET owner_id = COALESCE(owner_id, \(ingest.ownerID)::bigint), size = \(ingest.size), status = 'failed',
                    failure_reason = \(reason), warnings = NULL, updated_at = \(now)
                WHERE id = \(id)
                """)
        }
    }

    static func markMissingIfNoPathRemains(_ tx: PostgresTransaction, recordingID: Int64, now: Int64) async throws {
        try await tx.execute(
            """
            UPDATE recordings SET status = 'missing', updated_at = \(now)
            WHERE id = \(recordingID) AND status <> 'missing'
              AND NOT EXISTS (SELECT 1 FROM recording_paths WHERE recording_id = \(recordingID) AND is_present)
            """)
    }
}
