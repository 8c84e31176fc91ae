import Foundation
import GRDB
import StenoCatalog
import StenoCore
import StenoJSON

extension SQLiteCatalog {
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
            try Self.refreshRecordingSearch(db, ids: [id])
            return try Self.fetchRecordings(db, whereSQL: "r.id = ?", arguments: [id], withTranscript: true)[0]
        }
    }

    public func markPathGone(_ path: String, now: Date) async throws -> Recording? {
        try await writer.write { db in try Self.markPathGone(path, nowMilliseconds: Self.milliseconds(now), in: db) }
    }

    public func recordings(_ query: RecordingQuery) async throws -> [Recording] {
        let generation = visibleSetsGeneration
        return try await writer.read { db in
            func page(_ query: RecordingQuery, among visible: [Int64] = [], throughIndexes: Bool = false) throws -> [Recording] {
                let (sql, arguments) = Self.recordingListing(query, among: visible, throughIndexes: throughIndexes)
                return try Self.recordingsWithPaths(
                    db, rows: Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments), withTranscript: false)
            }
            guard query.order == .byID else { return try orderedRecordings(db, query, generation: generation) }
            guard let viewer = query.visibleTo else {
                // An admin's page: the recordings just after the cursor in id order, then (when
                // they were too few) the rest through the filters' indexes (see `recordingListing`).
                let walked = try page(query)
                let windowEnd = Self.recordingWindowEnd(of: query)
                guard walked.count < query.limit, windowEnd < Int64.max else { return walked }
                var rest = query
                rest.afterID = windowEnd
                rest.limit = query.limit - walked.count
                return try walked + page(rest, throughIndexes: true)
            }
            // A member's page: their visible recordings after the position, a chunk at a time.
            let visible = try visibleRecordingIDs(db, of: viewer, generation: generation)
            var chunks = MemberPageCandidates.Chunks(MemberPageCandidates.recordings(visible, after: query.afterID), wanted: query.limit)
            var chunkQuery = query
            var found: [Recording] = []
            while let chunk = chunks.next(found: found.count) {
                chunkQuery.limit = chunk.wanted
                found += try page(chunkQuery, among: chunk.ids)
            }
            return found
        }
    }

    /// How many recordings in id order an admin's page walks per row it lists before it asks
    /// the filters' indexes instead.
    static let recordingWindowPerRow: Int64 = 8

    /// The last id of the window an admin's page walks in id order (saturating).
    static func recordingWindowEnd(of query: RecordingQuery) -> Int64 {
        let (width, tooWide) = recordingWindowPerRow.multipliedReportingOverflow(by: Int64(max(0, query.limit)))
        let (end, overflow) = (query.afterID ?? 0).addingReportingOverflow(width)
        return tooWide || overflow ? Int64.max : end
    }

    /// The statement of a recordings page and its arguments (its plans are checked by tests).
    /// For a member (`query.visibleTo`), only recordings of `visible` (some of theirs) are
    /// listed: the statement never reads the visible set itself.
    ///
    /// An admin's page is two statements: the matching recordings among the next
    /// `recordingWindowPerRow × limit` ids (the table walked in id order, no index), then, when
    /// fewer than the page, those after that window (a query after the window's end,
    /// `throughIndexes`) through the filters' indexes. Through an index alone, each page of an `--all` over a range read and sorted
    /// every id of the range (20,000 for one of 1,000); a narrow filter still finds its few
    /// rows through its index after a short walk.
    static func recordingListing(
        _ query: RecordingQuery, among visible: [Int64] = [], throughIndexes: Bool = false
    ) -> (sql: String, arguments: StatementArguments) {
        // A member's recordings are read by id from the list (CROSS JOIN keeps it first):
        // ordered by id, SQLite would rather walk every recording testing each against it.
        var source = "recordings r"
        var arguments: StatementArguments = []
        var conditions = ["r.id > ?"]
        if query.visibleTo != nil {
            source = "json_each(?) visible CROSS JOIN recordings r ON r.id = visible.value"
            _ = arguments.append(contentsOf: [jsonArray(visible), query.afterID ?? 0])
        } else if throughIndexes {
            _ = arguments.append(contentsOf: [query.afterID ?? 0])
        } else {
            // NOT INDEXED leaves the primary key: the window is a range of the table itself.
            source = "recordings r NOT INDEXED"
            conditions.append("r.id <= ?")
            _ = arguments.append(contentsOf: [query.afterID ?? 0, recordingWindowEnd(of: query)])
        }
        appendFilters(of: query, to: &conditions, arguments: &arguments)
        // The page's ids first, from the index alone; then only their rows. Selected whole, a
        // range read every recording in it (and sorted the rows) for each page of an `--all`.
        let pageIDs = "SELECT r.id FROM \(source) WHERE \(conditions.joined(separator: " AND ")) ORDER BY r.id LIMIT \(max(0, query.limit))"
        return (recordingSelect(whereSQL: "r.id IN (\(pageIDs))", limit: nil, withTranscript: false), arguments)
    }

    /// The conditions of `query`'s filters (owner, status, warnings, range) over `r`.
    static func appendFilters(of query: RecordingQuery, to conditions: inout [String], arguments: inout StatementArguments) {
        if let owner = query.ownerID {
            conditions.append("r.owner_id = ?")
            _ = arguments.append(contentsOf: [owner])
        }
        if let status = query.status {
            conditions.append("r.status = ?")
            _ = arguments.append(contentsOf: [status.rawValue])
        }
        if query.withWarnings { conditions.append("r.warnings IS NOT NULL") }
        if let from = query.from {
            conditions.append("r.recorded_at >= ?")
            _ = arguments.append(contentsOf: [Self.milliseconds(from)])
        }
        if let to = query.to {
            conditions.append("r.recorded_at < ?")
            _ = arguments.append(contentsOf: [Self.milliseconds(to)])
        }
    }

    /// A page in another order than by id: an admin's walks the order's index from the
    /// position; a member's takes the candidates from their held order, a chunk at a time.
    func orderedRecordings(_ db: Database, _ query: RecordingQuery, generation: UInt64) throws -> [Recording] {
        func page(_ query: RecordingQuery, among visible: [Int64]? = nil) throws -> [Recording] {
            let (sql, arguments) = Self.orderedRecordingListing(query, among: visible)
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
            return query.order.sorted(try Self.recordingsWithPaths(db, rows: rows, withTranscript: false))
        }
        guard let viewer = query.visibleTo else { return try page(query) }
        let held = try visibleRecordingOrder(db, of: viewer, sort: query.order.sort, generation: generation)
        let candidates = held.candidates(after: query.after, descending: query.order.descending)
        var chunks = MemberPageCandidates.Chunks(candidates, wanted: query.limit)
        var chunkQuery = query
        chunkQuery.after = nil
        var found: [Recording] = []
        while let chunk = chunks.next(found: found.count) {
            chunkQuery.limit = chunk.wanted
            found += try page(chunkQuery, among: chunk.ids)
        }
        return found
    }

    /// The statement of a page in `query.order` and its arguments (its plans are checked by
    /// tests): the page's ids through the order's index (for a member, among `visible`, already
    /// after the position), then their rows.
    static func orderedRecordingListing(_ query: RecordingQuery, among visible: [Int64]? = nil) -> (sql: String, arguments: StatementArguments) {
        var source = "recordings r"
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if visible == nil, !query.hasRange {
            // Without statistics SQLite takes any equality on an indexed column (`--status
            // ready`, `--owner`) to pick a few rows, and would sort everything it matches for
            // each page: the order's index is walked instead, from the position until the page
            // is full.
            source += " " + orderedWalk(query.order.sort)
        }
        if let visible {
            source = "json_each(?) visible CROSS JOIN recordings r ON r.id = visible.value"
            _ = arguments.append(contentsOf: [jsonArray(visible)])
        } else if let after = query.after {
            conditions.append(query.order.sqlAfter(rangeGiven: query.hasRange, key: "?", repeatedKey: "?", id: "?"))
            let key: any DatabaseValueConvertible = query.order.keyIsInteger ? Int64(after.key) : after.key
            _ = arguments.append(contentsOf: [key, key, after.id])
        }
        appendFilters(of: query, to: &conditions, arguments: &arguments)
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let pageIDs = "SELECT r.id FROM \(source)\(filter) ORDER BY \(query.order.sqlOrderBy(rangeGiven: query.hasRange)) LIMIT \(max(0, query.limit))"
        return (recordingSelect(whereSQL: "r.id IN (\(pageIDs))", limit: nil, withTranscript: false), arguments)
    }

    /// How an admin's page in `sort` order without a range reads the recordings: through the
    /// order's index, or the table itself in id order.
    static func orderedWalk(_ sort: RecordingSort) -> String {
        switch sort {
        case .recorded: "INDEXED BY recordings_recorded_order"
        case .ingested: "INDEXED BY recordings_created"
        case .length: "INDEXED BY recordings_length"
        case .id: "NOT INDEXED"
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
    /// Marks the file at `path` gone inside a transaction (see `markPathGone(_:now:)`).
    static func markPathGone(_ path: String, nowMilliseconds: Int64, in db: Database) throws -> Recording? {
        guard let id = try Int64.fetchOne(
            db, sql: "SELECT recording_id FROM recording_paths WHERE path = ? AND is_present = 1", arguments: [path])
        else { return nil }
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

    static func pathState(_ row: Row) -> PathState {
        PathState(recordingID: row["recording_id"], size: row["size"] ?? 0, modifiedMilliseconds: row["mtime"] ?? 0, isPresent: row["is_present"])
    }

    /// Stores the outcome of reading one file inside the caller's transaction (see
    /// `recordIngest(_:)`); returns the recording's id. Cached statements throughout: the
    /// ingest path runs this thousands of times in a row. New content costs one INSERT into
    /// `recordings` (every column at once, so the search triggers index it once).
    /// Re-indexes recordings for `steno search` (title, transcript, every path): two
    /// statements for any number, the ids passed as one JSON array. Callers that insert
    /// recordings or paths call it once per transaction (title and transcript updates are
    /// re-indexed by a trigger).
    static func refreshRecordingSearch(_ db: Database, ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        let list = jsonArray(ids)
        try db.cachedStatement(sql: "DELETE FROM recording_search WHERE rowid IN (SELECT value FROM json_each(?))").execute(arguments: [list])
        try db.cachedStatement(
            sql: """
                INSERT INTO recording_search (rowid, title, transcript, path)
                SELECT r.id, r.title, r.transcript, (SELECT group_concat(path, ' ') FROM recording_paths WHERE recording_id = r.id)
                FROM recordings r WHERE r.id IN (SELECT value FROM json_each(?))
                """
        ).execute(arguments: [list])
    }

    /// Stores one ingest inside the caller's transaction; the caller refreshes the search
    /// index of the returned recording (``refreshRecordingSearch(_:ids:)``).
    static func recordIngest(_ ingest: IngestRecord, in db: Database) throws -> Int64 {
        let now = milliseconds(ingest.now)
        let previousOwnerOfPath = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT recording_id FROM recording_paths WHERE path = ?"), arguments: [ingest.path])
        var chosen: (id: Int64, isNew: Bool)?
        for step in IngestRecordChoice.steps(hasContentHash: ingest.contentHash != nil) where chosen == nil {
            switch step {
            case .adoptHashless:
                if let adopted = try hashlessRecordingAdopting(db, ingest, previousOwnerOfPath: previousOwnerOfPath) {
                    try updateRecording(db, id: adopted, with: ingest, now: now)
                    chosen = (adopted, false)
                }
            case .insert:
                chosen = try insertRecording(db, with: ingest, now: now).map { ($0, true) }
            case .attachToExisting:
                if let target = try existingRecording(db, for: ingest, previousOwnerOfPath: previousOwnerOfPath) {
                    let owner = try Int64.fetchOne(db.cachedStatement(sql: "SELECT owner_id FROM recordings WHERE id = ?"), arguments: [target])
                    if IngestRecordChoice.updatesExisting(owner: owner, ingestOwner: ingest.ownerID) {
                        try updateRecording(db, id: target, with: ingest, now: now)
                    }
                    chosen = (target, false)
                }
            }
        }
        guard let (id, isNew) = chosen else { throw IngestRecordChoice.noRecording(path: ingest.path) }
        try db.cachedStatement(
            sql: """
                INSERT INTO recording_paths (path, recording_id, size, mtime, is_present, first_seen_at, last_seen_at)
                VALUES (?, ?, ?, ?, 1, ?, ?)
                ON CONFLICT(path) DO UPDATE SET recording_id = excluded.recording_id, size = excluded.size,
                    mtime = excluded.mtime, is_present = 1, last_seen_at = excluded.last_seen_at
                """
        ).execute(arguments: [ingest.path, id, ingest.size, milliseconds(ingest.modified), now, now])
        for cleanup in IngestRecordChoice.cleanups(id: id, isNew: isNew, previousOwnerOfPath: previousOwnerOfPath) {
            switch cleanup {
            case .dropVanishedPaths:
                try db.cachedStatement(sql: "DELETE FROM recording_paths WHERE recording_id = ? AND is_present = 0 AND path != ?")
                    .execute(arguments: [id, ingest.path])
            case .markMissingIfNoPathRemains(let previous):
                try markMissingIfNoPathRemains(db, recordingID: previous, now: now)
            }
        }
        return id
    }

    /// The recording an ingest updates: the one with its content hash, or for a file that
    /// could not be hashed, the hashless recording its path held before.
    private static func existingRecording(_ db: Database, for ingest: IngestRecord, previousOwnerOfPath: Int64?) throws -> Int64? {
        if let hash = ingest.contentHash {
            return try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM recordings WHERE content_hash = ?"), arguments: [hash])
        }
        guard let previous = previousOwnerOfPath,
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT content_hash IS NULL FROM recordings WHERE id = ?"), arguments: [previous]) == true
        else { return nil }
        return previous
    }

    /// The hashless recording the ingest's path held, given the hash the file now has (when no
    /// recording has that content yet): nil otherwise, without a query for a path seen first.
    private static func hashlessRecordingAdopting(_ db: Database, _ ingest: IngestRecord, previousOwnerOfPath: Int64?) throws -> Int64? {
        guard let hash = ingest.contentHash, let previous = previousOwnerOfPath,
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT content_hash IS NULL AND NOT EXISTS (SELECT 1 FROM recordings WHERE content_hash = ?)
                        FROM recordings WHERE id = ?
                        """), arguments: [hash, previous]) == true
        else { return nil }
        try db.cachedStatement(sql: "UPDATE recordings SET content_hash = ? WHERE id = ?").execute(arguments: [hash, previous])
        return previous
    }

    /// Inserts a recording with everything the ingest found; nil (and nothing written) when
    /// its content hash is catalogued already.
    static func insertRecording(_ db: Database, with ingest: IngestRecord, now: Int64) throws -> Int64? {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO recordings (content_hash, owner_id, size, format, codec, duration, sample_rate, channels,
                    recorded_at, recorded_at_source, title, ical_uid_hint, event_id_hint, provider_hint, sidecar, transcript,
                    warnings, status, failure_reason, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(content_hash) DO NOTHING
                RETURNING id
                """)
        var arguments: StatementArguments = [ingest.contentHash, ingest.ownerID, ingest.size]
        switch ingest.outcome {
        case .ready(let metadata):
            arguments += [
                metadata.format, metadata.codec, metadata.duration, metadata.sampleRate, metadata.channels,
                metadata.recordedAt.map(milliseconds), metadata.recordedAtSource?.rawValue, metadata.title,
                metadata.iCalUIDHint, metadata.eventIDHint, metadata.providerHint, metadata.sidecarJSON,
                metadata.transcript, RecordingWarningsColumn.text(metadata.warnings), RecordingStatus.ready.rawValue, nil, now, now,
            ]
        case .failed(let reason):
            arguments += [
                nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil,
                RecordingStatus.failed.rawValue, reason, now, now,
            ]
        }
        return try Int64.fetchOne(statement, arguments: arguments)
    }

    /// Writes what this read found; the first known owner is kept.
    static func updateRecording(_ db: Database, id: Int64, with ingest: IngestRecord, now: Int64) throws {
        switch ingest.outcome {
        case .ready(let metadata):
            try db.cachedStatement(
                sql: """
                    UPDATE recordings SET owner_id = COALESCE(owner_id, ?), size = ?, format = ?, codec = ?, duration = ?,
                        sample_rate = ?, channels = ?, recorded_at = ?, recorded_at_source = ?, title = ?,
                        ical_uid_hint = ?, event_id_hint = ?, provider_hint = ?, sidecar = ?, transcript = ?, warnings = ?,
                        status = 'ready', failure_reason = NULL, updated_at = ?
                    WHERE id = ?
                    """
            ).execute(
                arguments: [
                    ingest.ownerID, ingest.size, metadata.format, metadata.codec, metadata.duration,
                    metadata.sampleRate, metadata.channels, metadata.recordedAt.map(milliseconds),
                    metadata.recordedAtSource?.rawValue, metadata.title, metadata.iCalUIDHint, metadata.eventIDHint,
                    metadata.providerHint, metadata.sidecarJSON, metadata.transcript, RecordingWarningsColumn.text(metadata.warnings), now, id,
                ])
        case .failed(let reason):
            try db.cachedStatement(
                sql: """
                    UPDATE recordings SET owner_id = COALESCE(owner_id, ?), size = ?, status = 'failed', failure_reason = ?,
                        warnings = NULL, updated_at = ? WHERE id = ?
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

    /// The columns `recording(_:withTranscript:)` reads by position, in this order; without the
    /// transcript, NULL in its place (listings leave it out, and long ones fill overflow pages
    /// that reading the column would load).
    static func recordingColumns(withTranscript: Bool) -> String {
        """
        r.id, r.content_hash, r.owner_id, u.name, r.size, r.format, r.codec, r.duration, r.sample_rate, r.channels,
        r.recorded_at, r.recorded_at_source, r.title, r.ical_uid_hint, r.event_id_hint, r.provider_hint,
        \(withTranscript ? "r.transcript" : "NULL"), r.status, r.failure_reason, r.created_at, r.updated_at, r.warnings
        """
    }

    static func fetchRecordings(
        _ db: Database, whereSQL: String, arguments: StatementArguments, withTranscript: Bool, limit: Int? = nil
    ) throws -> [Recording] {
        let rows = try Row.fetchCursor(
            db, sql: recordingSelect(whereSQL: whereSQL, limit: limit, withTranscript: withTranscript), arguments: arguments)
        return try recordingsWithPaths(db, rows: rows, withTranscript: withTranscript)
    }

    /// Recordings matching `whereSQL` (over `r`) in id order, up to `limit`.
    static func recordingSelect(whereSQL: String, limit: Int?, withTranscript: Bool) -> String {
        """
        SELECT \(recordingColumns(withTranscript: withTranscript)) FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
        WHERE \(whereSQL) ORDER BY r.id\(limit.map { " LIMIT \(max(0, $0))" } ?? "")
        """
    }

    /// Recordings by id, with transcripts, through cached statements (the ids go in as one
    /// JSON array): preparing a statement per call costs more than reading a batch's rows.
    static func fetchRecordings(_ db: Database, ids: [Int64]) throws -> [Recording] {
        guard !ids.isEmpty else { return [] }
        let statement = try db.cachedStatement(
            sql: """
                SELECT \(recordingColumns(withTranscript: true)) FROM recordings r LEFT JOIN users u ON u.id = r.owner_id
                WHERE r.id IN (SELECT value FROM json_each(?)) ORDER BY r.id
                """)
        let list = jsonArray(ids)
        return try recordingsWithPaths(db, rows: Row.fetchCursor(statement, arguments: [list]), withTranscript: true)
    }

    /// A recording from a row of `recordingColumns`, read by position (no name lookups: a
    /// batch reads thousands of these), without its paths.
    static func recording(_ row: Row, withTranscript: Bool) -> Recording {
        Recording(
            id: row[0], contentHash: row[1], ownerID: row[2], ownerName: row[3], size: row[4], format: row[5], codec: row[6],
            duration: row[7], sampleRate: row[8], channels: row[9], recordedAt: (row[10] as Int64?).map(date(milliseconds:)),
            recordedAtSource: (row[11] as String?).flatMap(RecordedAtSource.init(rawValue:)), title: row[12],
            iCalUIDHint: row[13], eventIDHint: row[14], providerHint: row[15], transcript: withTranscript ? row[16] : nil,
            status: RecordingStatus(rawValue: row[17]) ?? .pending, failureReason: row[18],
            createdAt: date(milliseconds: row[19]), updatedAt: date(milliseconds: row[20]), warnings: RecordingWarningsColumn.warnings(fromJSON: row[21]))
    }

    /// Recordings from rows of `recordingColumns`, with their paths.
    static func recordingsWithPaths(_ db: Database, rows: RowCursor, withTranscript: Bool) throws -> [Recording] {
        var recordings: [Recording] = []
        while let row = try rows.next() { recordings.append(recording(row, withTranscript: withTranscript)) }
        guard !recordings.isEmpty else { return [] }
        var indexByID: [Int64: Int] = [:]
        for (index, recording) in recordings.enumerated() { indexByID[recording.id] = index }
        // In the index's order: sorted by presence and path in SQL, a page's thousand paths
        // went through a sorter; most recordings have one path, and the few with more are
        // put in that order here.
        let statement = try db.cachedStatement(
            sql: """
                SELECT recording_id, path, is_present FROM recording_paths
                WHERE recording_id IN (SELECT value FROM json_each(?)) ORDER BY recording_id
                """)
        let paths = try Row.fetchCursor(statement, arguments: [jsonArray(recordings.map(\.id))])
        var withSeveralPaths: [Int] = []
        while let row = try paths.next() {
            guard let index = indexByID[row[0]] else { continue }
            recordings[index].paths.append(RecordingPath(path: row[1], isPresent: row[2]))
            if recordings[index].paths.count == 2 { withSeveralPaths.append(index) }
        }
        for index in withSeveralPaths { recordings[index].paths.sort(by: RecordingPath.presentFirstThenByBytes) }
        return recordings
    }
}
