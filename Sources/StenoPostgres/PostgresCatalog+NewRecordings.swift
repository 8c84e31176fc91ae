import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// The common case of an ingest commit written in three statements instead of three per file:
/// files at paths the catalog does not know yet, with content it has not seen, become new
/// recordings with one insert of all of them, and their paths with one more.
///
/// Only files that nothing else in the commit touches take this way (a path and a content
/// hash of their own), so writing them before the others changes nothing of what each one
/// becomes; any other file, and one whose content another daemon catalogued meanwhile, goes
/// through ``recordIngest(_:in:)`` one at a time.
extension PostgresCatalog {
    /// The positions (in `files`) of the ingests that may be stored as new recordings at once:
    /// a content hash, a path that appears once in `files`, a hash no other ingest has, and values
    /// JSON carries unchanged.
    static func newRecordingCandidates(_ files: [IngestCommit.File]) -> [Int] {
        var pathUses: [String: Int] = [:]
        var hashUses: [String: Int] = [:]
        for file in files {
            pathUses[file.path, default: 0] += 1
            if case .record(let record) = file.action {
                pathUses[record.path, default: 0] += record.path == file.path ? 0 : 1
                if let hash = record.contentHash { hashUses[hash, default: 0] += 1 }
            }
        }
        return files.indices.filter { index in
            guard case .record(let record) = files[index].action, let hash = record.contentHash else { return false }
            return pathUses[record.path] == 1 && pathUses[files[index].path] == 1 && hashUses[hash] == 1 && fitsJSON(record)
        }
    }

    /// Stores the ingests whose paths have no row yet and whose content has no recording as new
    /// recordings, three statements for all of them; returns the recording id of each one
    /// stored, by position in `ingests`. The others are left to ``recordIngest(_:in:)``.
    static func recordNewIngests(_ ingests: [IngestRecord], in tx: PostgresTransaction) async throws -> [Int: Int64] {
        guard !ingests.isEmpty else { return [:] }
        // Locks the rows of paths known already (in path order, so daemons never wait for
        // each other in a circle); those ingests take the one-at-a-time way.
        let known = Set(
            try await tx.rows(
                "SELECT path FROM recording_paths WHERE path = ANY(\(ingests.map(\.path))::text[]) ORDER BY path FOR UPDATE"
            ).map { try $0.decode(String.self) })
        let fresh = ingests.indices.filter { !known.contains(ingests[$0].path) }
        guard !fresh.isEmpty else { return [:] }
        let rows = fresh.map { NewRecordingRow(ingests[$0]) }
        // One JSON parameter for every column, nulls included (arrays of optionals do not bind).
        let json = String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)
        let inserted = try await tx.rows(
            """
            INSERT INTO recordings (content_hash, owner_id, size, format, codec, duration, sample_rate, channels,
                recorded_at, recorded_at_source, title, ical_uid_hint, event_id_hint, provider_hint, sidecar, transcript,
                warnings, status, failure_reason, created_at, updated_at)
            SELECT content_hash, owner_id, size, format, codec, duration, sample_rate, channels, recorded_at, recorded_at_source, title,
                ical_uid_hint, event_id_hint, provider_hint, sidecar, transcript, warnings, status, failure_reason, created_at, updated_at
            FROM jsonb_populate_recordset(NULL::recordings, \(json)::jsonb)
            ON CONFLICT (content_hash) DO NOTHING
            RETURNING id, content_hash
            """)
        var idByHash: [String: Int64] = [:]
        for row in inserted {
            let (id, hash) = try row.decode((Int64, String).self)
            idByHash[hash] = id
        }
        var stored: [Int: Int64] = [:]
        for index in fresh {
            if let hash = ingests[index].contentHash, let id = idByHash[hash] { stored[index] = id }
        }
        guard !stored.isEmpty else { return [:] }
        let written = stored.keys.sorted()
        let paths = written.map { ingests[$0].path }, ids = written.compactMap { stored[$0] }
        let sizes = written.map { ingests[$0].size }, mtimes = written.map { milliseconds(ingests[$0].modified) }
        let seen = written.map { milliseconds(ingests[$0].now) }
        // The same upsert as one at a time: another daemon may add a path this one found free.
        try await tx.execute(
            """
            INSERT INTO recording_paths (path, recording_id, size, mtime, is_present, first_seen_at, last_seen_at)
            SELECT path, recording_id, size, mtime, TRUE, seen, seen
            FROM unnest(\(paths)::text[], \(ids)::bigint[], \(sizes)::bigint[], \(mtimes)::bigint[], \(seen)::bigint[])
                AS new (path, recording_id, size, mtime, seen)
            ON CONFLICT (path) DO UPDATE SET recording_id = excluded.recording_id, size = excluded.size,
                mtime = excluded.mtime, is_present = TRUE, last_seen_at = excluded.last_seen_at
            """)
        return stored
    }

    /// Whether the ingest's values go through JSON unchanged: no NUL character in its text
    /// (PostgreSQL refuses it; the one-at-a-time way reports it) and a finite duration.
    private static func fitsJSON(_ record: IngestRecord) -> Bool {
        let row = NewRecordingRow(record)
        let texts = [
            record.path, row.format, row.codec, row.title, row.icalUIDHint, row.eventIDHint, row.providerHint, row.sidecar,
            row.transcript, row.warnings, row.failureReason, row.recordedAtSource,
        ]
        return !texts.contains { $0?.contains("\u{0}") == true } && row.duration?.isFinite != false
    }
}

/// A new recording's columns for `jsonb_populate_recordset`, which reads a missing key (a nil
/// value) as NULL.
private struct NewRecordingRow: Encodable {
    var contentHash: String?, ownerID: Int64?, size: Int64, format: String?, codec: String?, duration: Double?
    var sampleRate: Int?, channels: Int?, recordedAt: Int64?, recordedAtSource: String?, title: String?
    var icalUIDHint: String?, eventIDHint: String?, providerHint: String?, sidecar: String?, transcript: String?
    var warnings: String?, status: String, failureReason: String?, createdAt: Int64, updatedAt: Int64

    enum CodingKeys: String, CodingKey {
        case contentHash = "content_hash", ownerID = "owner_id", size, format, codec, duration, sampleRate = "sample_rate", channels
        case recordedAt = "recorded_at", recordedAtSource = "recorded_at_source", title, icalUIDHint = "ical_uid_hint"
        case eventIDHint = "event_id_hint", providerHint = "provider_hint", sidecar, transcript, warnings, status
        case failureReason = "failure_reason", createdAt = "created_at", updatedAt = "updated_at"
    }

    init(_ ingest: IngestRecord) {
        let read: PostgresCatalog.ReadValues
        switch ingest.outcome {
        case .ready(let metadata): read = PostgresCatalog.ReadValues(metadata)
        case .failed(let reason): read = PostgresCatalog.ReadValues(failure: reason)
        }
        let now = PostgresCatalog.milliseconds(ingest.now)
        (contentHash, ownerID, size) = (ingest.contentHash, ingest.ownerID, ingest.size)
        (format, codec, duration, sampleRate, channels) = (read.format, read.codec, read.duration, read.sampleRate, read.channels)
        (recordedAt, recordedAtSource, title) = (read.recordedAt, read.recordedAtSource, read.title)
        (icalUIDHint, eventIDHint, providerHint) = (read.iCalUIDHint, read.eventIDHint, read.providerHint)
        (sidecar, transcript, warnings) = (read.sidecar, read.transcript, read.warnings)
        (status, failureReason, createdAt, updatedAt) = (read.status.rawValue, read.failureReason, now, now)
    }
}
