import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Recordings and the inbox paths they live at. Who may see a recording is the SQL of
/// `CatalogSQL.recordingVisible(to:)` for one recording, shared by both backends, and the
/// set of `visibleRecordingIDs(of:)` for a listing.
extension PostgresCatalog: RecordingStore {
    public func pathState(_ path: String) async throws -> PathState? {
        try await pathStates([path])[path]
    }

    public func pathStates(_ paths: [String]) async throws -> [String: PathState] {
        guard !paths.isEmpty else { return [:] }
        return try Self.pathStates(
            try await rows("SELECT path, recording_id, size, mtime, is_present FROM recording_paths WHERE path = ANY(\(paths))"))
    }

    public func presentPaths() async throws -> [String: PathState] {
        try Self.pathStates(try await rows("SELECT path, recording_id, size, mtime, is_present FROM recording_paths WHERE is_present"))
    }

    public func recordIngest(_ ingest: IngestRecord) async throws -> Recording {
        try await transaction { tx in
            let id = try await Self.recordIngest(ingest, in: tx)
            try await Self.refreshRecordingSearch(tx, ids: [id])
            guard let recording = try await Self.fetchRecordings(tx, ids: [id]).first else {
                throw StoreError.failedPrecondition("the recording of \(ingest.path) was stored but cannot be read back")
            }
            return recording
        }
    }

    public func markPathGone(_ path: String, now: Date) async throws -> Recording? {
        try await transaction { tx in try await Self.markPathGone(path, nowMilliseconds: Self.milliseconds(now), in: tx) }
    }

    public func recordings(_ query: RecordingQuery) async throws -> [Recording] {
        guard query.order == .byID else { return try await orderedRecordings(query) }
        guard let viewer = query.visibleTo else {
            return try await transaction { tx in try await Self.fetchRecordings(tx, Self.recordingListing(query)) }
        }
        return try await snapshot { tx in
            // A member's page: their visible recordings after the position, a chunk at a time.
            let visible = try await visibleRecordingIDs(tx, of: viewer, stamp: try await Self.snapshotStamp(tx))
            var chunks = MemberPageCandidates.Chunks(MemberPageCandidates.recordings(visible, after: query.afterID), wanted: query.limit)
            var chunkQuery = query
            var found: [Recording] = []
            while let chunk = chunks.next(found: found.count) {
                chunkQuery.limit = chunk.wanted
                found += try await Self.fetchRecordings(tx, Self.recordingListing(chunkQuery, among: chunk.ids))
            }
            return found
        }
    }

    /// The statement of a recordings page (its plan is checked by tests), the page continuing
    /// after `query.afterID`. For a member (`query.visibleTo`), only recordings of `visible`
    /// (some of theirs) are listed: the statement never reads the visible set itself.
    static func recordingListing(_ query: RecordingQuery, among visible: [Int64] = []) -> PostgresQuery {
        var values = NumberedValues()
        var conditions = ["r.id > \(values.bind(query.afterID ?? 0, as: "bigint"))"]
        if query.visibleTo != nil { conditions.append("r.id = ANY(\(values.bind(visible, as: "bigint[]")))") }
        appendFilters(of: query, to: &conditions, values: &values)
        let limit = values.bind(Int64(max(0, query.limit)), as: "bigint")
        return values.query(
            """
            SELECT \(recordingColumns(withTranscript: false)) FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY r.id LIMIT \(limit)
            """)
    }

    /// A page in another order than by id: an admin's walks the order's index from the
    /// position; a member's takes the candidates from their held order, a chunk at a time.
    func orderedRecordings(_ query: RecordingQuery) async throws -> [Recording] {
        guard let viewer = query.visibleTo else {
            return try await transaction { tx in try await Self.fetchRecordings(tx, Self.orderedRecordingListing(query)) }
        }
        return try await snapshot { tx in
            let held = try await visibleRecordingOrder(tx, of: viewer, sort: query.order.sort, stamp: try await Self.snapshotStamp(tx))
            var chunks = MemberPageCandidates.Chunks(held.candidates(after: query.after, descending: query.order.descending), wanted: query.limit)
            var chunkQuery = query
            chunkQuery.after = nil
            var found: [Recording] = []
            while let chunk = chunks.next(found: found.count) {
                chunkQuery.limit = chunk.wanted
                found += try await Self.fetchRecordings(tx, Self.orderedRecordingListing(chunkQuery, among: chunk.ids))
            }
            return found
        }
    }

    /// The statement of a page in `query.order` (its plan is checked by tests), through the
    /// order's index from the position; for a member, among `visible` (already after it).
    static func orderedRecordingListing(_ query: RecordingQuery, among visible: [Int64]? = nil) -> PostgresQuery {
        var values = NumberedValues()
        var conditions: [String] = []
        if let visible {
            conditions.append("r.id = ANY(\(values.bind(visible, as: "bigint[]")))")
        } else if let after = query.after {
            let type = query.order.keyIsInteger ? "bigint" : "double precision"
            let key: any PostgresDynamicTypeEncodable = query.order.keyIsInteger ? Int64(after.key) : after.key
            let (first, second) = (values.bind(key, as: type), values.bind(key, as: type))
            conditions.append(
                query.order.sqlAfter(rangeGiven: query.hasRange, key: first, repeatedKey: second, id: values.bind(after.id, as: "bigint")))
        }
        appendFilters(of: query, to: &conditions, values: &values)
        let limit = values.bind(Int64(max(0, query.limit)), as: "bigint")
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return values.query(
            """
            SELECT \(recordingColumns(withTranscript: false)) FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
            \(filter) ORDER BY \(query.order.sqlOrderBy(rangeGiven: query.hasRange)) LIMIT \(limit)
            """)
    }

    /// The conditions of `query`'s filters (owner, status, warnings, range) over `r`.
    static func appendFilters(of query: RecordingQuery, to conditions: inout [String], values: inout NumberedValues) {
        if let owner = query.ownerID { conditions.append("r.owner_id = \(values.bind(owner, as: "bigint"))") }
        if let status = query.status { conditions.append("r.status = \(values.bind(status.rawValue, as: "text"))") }
        if query.withWarnings { conditions.append("r.warnings IS NOT NULL") }
        if let from = query.from { conditions.append("r.recorded_at >= \(values.bind(milliseconds(from), as: "bigint"))") }
        if let to = query.to { conditions.append("r.recorded_at < \(values.bind(milliseconds(to), as: "bigint"))") }
    }

    public func recording(id: Int64, visibleTo userID: Int64?) async throws -> Recording {
        let found = try await transaction { tx in
            try await Self.fetchRecordings(
                tx,
                """
                SELECT \(unescaped: Self.recordingColumns(withTranscript: true)) FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
                WHERE r.id = \(id)
                  AND EXISTS (SELECT 1 FROM (SELECT \(userID)::bigint AS id) viewer
                              WHERE \(unescaped: CatalogSQL.recordingVisible(to: "viewer.id")))
                """)
        }
        guard let recording = found.first else { throw StoreError.notFound(entity: "recording", reference: String(id)) }
        return recording
    }
}

// MARK: - Reading

extension PostgresCatalog {
    /// The columns `recording(_:)` reads by position. The owner's name is CITEXT, read as text.
    static func recordingColumns(withTranscript: Bool) -> String {
        """
        r.id, r.content_hash, r.owner_id, u.name::text, r.size, r.format, r.codec, r.duration, r.sample_rate, r.channels,
        r.recorded_at, r.recorded_at_source, r.title, r.ical_uid_hint, r.event_id_hint, r.provider_hint,
        \(withTranscript ? "r.transcript" : "NULL::text"), r.status, r.failure_reason, r.created_at, r.updated_at, r.warnings
        """
    }

    /// Recordings by id, with transcripts.
    static func fetchRecordings(_ tx: PostgresTransaction, ids: [Int64]) async throws -> [Recording] {
        guard !ids.isEmpty else { return [] }
        return try await fetchRecordings(
            tx,
            """
            SELECT \(unescaped: recordingColumns(withTranscript: true)) FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
            WHERE r.id = ANY(\(ids)) ORDER BY r.id
            """)
    }

    /// The recordings a query of `recordingColumns` selects, with their paths, read in the
    /// caller's transaction (one snapshot when it is repeatable, one connection always).
    static func fetchRecordings(_ tx: PostgresTransaction, _ query: PostgresQuery) async throws -> [Recording] {
        var recordings = try await tx.rows(query).map(recording)
        guard !recordings.isEmpty else { return [] }
        var indexByID: [Int64: Int] = [:]
        for (index, recording) in recordings.enumerated() { indexByID[recording.id] = index }
        // Paths in byte order, as SQLite sorts them, whatever the database's collation.
        let paths = try await tx.rows(
            """
            SELECT recording_id, path, is_present FROM recording_paths
            WHERE recording_id = ANY(\(recordings.map(\.id))) ORDER BY is_present DESC, path COLLATE "C"
            """)
        for row in paths {
            let (recordingID, path, isPresent) = try row.decode((Int64, String, Bool).self)
            if let index = indexByID[recordingID] { recordings[index].paths.append(RecordingPath(path: path, isPresent: isPresent)) }
        }
        return recordings
    }

    /// A recording from a row of `recordingColumns`, without its paths.
    static func recording(_ row: PostgresRow) throws -> Recording {
        let cells = row.makeRandomAccess()
        let status = try cells[17].decode(String.self)
        return Recording(
            id: try cells[0].decode(Int64.self), contentHash: try cells[1].decode(String?.self), ownerID: try cells[2].decode(Int64?.self),
            ownerName: try cells[3].decode(String?.self), size: try cells[4].decode(Int64.self), format: try cells[5].decode(String?.self),
            codec: try cells[6].decode(String?.self), duration: try cells[7].decode(Double?.self), sampleRate: try cells[8].decode(Int?.self),
            channels: try cells[9].decode(Int?.self), recordedAt: try cells[10].decode(Int64?.self).map(date(milliseconds:)),
            recordedAtSource: try cells[11].decode(String?.self).flatMap(RecordedAtSource.init(rawValue:)),
            title: try cells[12].decode(String?.self), iCalUIDHint: try cells[13].decode(String?.self),
            eventIDHint: try cells[14].decode(String?.self), providerHint: try cells[15].decode(String?.self),
            transcript: try cells[16].decode(String?.self), status: RecordingStatus(rawValue: status) ?? .pending,
            failureReason: try cells[18].decode(String?.self), createdAt: date(milliseconds: try cells[19].decode(Int64.self)),
            updatedAt: date(milliseconds: try cells[20].decode(Int64.self)),
            warnings: RecordingWarningsColumn.warnings(fromJSON: try cells[21].decode(String?.self)))
    }

    /// Path states from rows of `path, recording_id, size, mtime, is_present`.
    static func pathStates(_ rows: [PostgresRow]) throws -> [String: PathState] {
        var states: [String: PathState] = [:]
        for row in rows {
            let (path, recordingID, size, modified, isPresent) = try row.decode((String, Int64, Int64?, Int64?, Bool).self)
            states[path] = PathState(recordingID: recordingID, size: size ?? 0, modifiedMilliseconds: modified ?? 0, isPresent: isPresent)
        }
        return states
    }
}

// MARK: - Search

extension PostgresCatalog {
    /// Re-indexes recordings for `steno search` (title, transcript, every path), as SQLite's
    /// FTS5 table holds them: the lexemes are folded in Swift (`SearchLexemes`), so both
    /// backends find the same words. Called by every write that stores recordings or paths,
    /// in its transaction.
    static func refreshRecordingSearch(_ tx: PostgresTransaction, ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        let rows = try await tx.rows(
            """
            SELECT r.id, r.title, r.transcript,
                (SELECT string_agg(path, ' ' ORDER BY path COLLATE "C") FROM recording_paths WHERE recording_id = r.id)
            FROM recordings r WHERE r.id = ANY(\(ids))
            """)
        var (indexed, titles, transcripts, paths, lexemes) = ([Int64](), [String](), [String](), [String](), [String]())
        for row in rows {
            let (id, title, transcript, path) = try row.decode((Int64, String?, String?, String?).self)
            indexed.append(id)
            titles.append(title ?? "")
            transcripts.append(transcript ?? "")
            paths.append(path ?? "")
            // A tsvector lexeme holds at most 2 KiB; a longer "word" (an encoded blob) is not
            // something anyone searches for.
            lexemes.append(SearchLexemes.lexemes([title, transcript, path]).filter { $0.utf8.count < 2048 }.joined(separator: " "))
        }
        // Lexemes never hold a space (they are runs of letters and digits), so one string each.
        try await tx.execute(
            """
            INSERT INTO recording_search (recording_id, title, transcript, path, lexemes)
            SELECT id, title, transcript, path, array_to_tsvector(string_to_array(words, ' '))
            FROM unnest(\(indexed)::bigint[], \(titles)::text[], \(transcripts)::text[], \(paths)::text[], \(lexemes)::text[])
                AS indexed (id, title, transcript, path, words)
            ON CONFLICT (recording_id) DO UPDATE SET title = excluded.title, transcript = excluded.transcript,
                path = excluded.path, lexemes = excluded.lexemes
            """)
    }
}
