import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog {

    public func meetings(_ query: MeetingQuery) async throws -> [MeetingSummary] {
        let generation = visibleSetsGeneration
        return try await writer.read { db in
            let ids: [Int64]
            if let viewer = query.visibleTo {
                // A member's page: their visible meetings in the range, a chunk at a time.
                let keys = try visibleMeetingKeys(db, of: viewer, generation: generation)
                let candidates = try memberCandidates(db, of: viewer, keys: keys, generation: generation, for: query)
                var chunks = MemberPageCandidates.Chunks(candidates.ids, wanted: query.offset + query.limit)
                var chunkQuery = candidates.remaining(of: query)
                chunkQuery.offset = 0
                var found: [Int64] = []
                while let chunk = chunks.next(found: found.count) {
                    chunkQuery.limit = chunk.wanted
                    let (sql, arguments) = Self.meetingListing(chunkQuery, among: chunk.ids)
                    found += try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
                }
                ids = Array(found.dropFirst(query.offset).prefix(query.limit))
            } else {
                let titleCandidates = try Self.titleCandidates(db, containing: query.titleContains)
                let (sql, arguments) = Self.meetingListing(query, titleCandidates: titleCandidates)
                ids = try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            }
            let summaries = try Self.meetingSummaries(db, ids: ids)
            return ids.compactMap { summaries[$0] }
        }
    }

    /// The statement listing the ids of a page of meetings, the page continuing an index range
    /// after `query.after`: of the meetings' starts, or with `--with` of the address's rows in
    /// `meeting_people` (one walk in the listing's order, where the address's meetings gathered
    /// into a set cost every page 20,000 ids). For a member (`query.visibleTo`), only meetings
    /// of `visible` (some of theirs, in listing order) are listed, read by id: the statement
    /// never reads the visible set itself. `titleCandidates` (see ``titleCandidates(_:containing:)``)
    /// reads `--title`'s meetings through the titles' trigrams.
    static func meetingListing(
        _ query: MeetingQuery, among visible: [Int64] = [], titleCandidates: String? = nil
    ) -> (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments: [String: (any DatabaseValueConvertible)?] = [:]
        // The rows walked, and the columns of their order.
        var source = "meetings m"
        var start = "m.starts_at", id = "m.id"
        let member = query.visibleTo != nil
        if member {
            // A member's meetings are the ids given, in the order given (their held set's,
            // narrowed to the range and position already): no meeting row is read unless a
            // condition needs it (a title), where looking up every candidate's row to sort
            // them cost more than the rest of the page.
            source = "(SELECT value AS id, key, (SELECT title FROM meetings WHERE id = value) AS title FROM json_each(:visible)) m"
            arguments["visible"] = jsonArray(visible)
            if let email = query.withEmail {
                conditions.append("EXISTS (SELECT 1 FROM meeting_people p WHERE p.meeting_id = m.id AND p.email = :email)")
                arguments["email"] = email
            }
        } else if let email = query.withEmail {
            // The address's rows walked in order; the meeting's row is read only for a title
            // (a page of 1,000 spent a third of its statement looking meetings up). CROSS JOIN
            // keeps the address's rows the outer loop.
            source = query.titleContains == nil ? "meeting_people p" : "meeting_people p CROSS JOIN meetings m ON m.id = p.meeting_id"
            (start, id) = ("p.starts_at", "p.meeting_id")
            conditions.append("p.email = :email")
            arguments["email"] = email
        }
        if let from = query.from, !member {
            conditions.append("\(start) >= :from")
            arguments["from"] = milliseconds(from)
        }
        if let to = query.to, !member {
            conditions.append("\(start) < :to")
            arguments["to"] = milliseconds(to)
        }
        if let after = query.after, !member {
            arguments["afterID"] = after.id
            // Meetings without a start come first (ascending) or last (newest first).
            switch (after.startMilliseconds, query.newestFirst) {
            case (let afterStart?, false):
                conditions.append("(\(start) > :afterStart OR (\(start) = :afterStart AND \(id) > :afterID))")
                arguments["afterStart"] = afterStart
            case (nil, false):
                conditions.append("(\(start) IS NOT NULL OR \(id) > :afterID)")
            case (let afterStart?, true):
                conditions.append("(\(start) < :afterStart OR (\(start) = :afterStart AND \(id) < :afterID) OR \(start) IS NULL)")
                arguments["afterStart"] = afterStart
            case (nil, true):
                conditions.append("(\(start) IS NULL AND \(id) < :afterID)")
            }
        }
        if query.hideGone {
            conditions.append(
                """
                (EXISTS (SELECT 1 FROM events e WHERE e.meeting_id = \(id) AND e.deleted_at IS NULL)
                 OR EXISTS (SELECT 1 FROM links l WHERE l.meeting_id = \(id) AND l.state IN ('linked', 'orphaned')))
                """)
        }
        if !query.withAny.isEmpty {
            var alternatives: [String] = []
            for (index, match) in query.withAny.enumerated() {
                if case .email(let email) = match {
                    alternatives.append("\(id) IN (\(CatalogSQL.meetingIDs(withEmail: ":with\(index)")))")
                    arguments["with\(index)"] = email
                } else if let pattern = match.likePattern, let search = match.searchWords {
                    // Candidates from the full-text index (no scan of every attendee), each then
                    // checked against its own attendees.
                    alternatives.append(
                        """
                        (\(id) IN (SELECT rowid FROM meeting_search WHERE meeting_search MATCH :search\(index))
                         AND \(CatalogSQL.attendeeLike(":like\(index)", names: match.matchesNames, fold: NameFolding.sql, meeting: id)))
                        """)
                    arguments["search\(index)"] = Self.matchExpression(search.words, phrase: search.isPhrase)
                    arguments["like\(index)"] = pattern
                }
            }
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        if let title = query.titleContains {
            conditions.append("m.title LIKE :title ESCAPE '\\'")
            arguments["title"] = CatalogSQL.likePattern(containing: title)
            if let titleCandidates {
                conditions.append("\(id) IN (SELECT rowid FROM meeting_titles WHERE meeting_titles MATCH :titleCandidates)")
                arguments["titleCandidates"] = titleCandidates
            }
        }
        if let recorded = query.recorded {
            conditions.append(
                (recorded ? "" : "NOT ") + "EXISTS (SELECT 1 FROM links l WHERE l.meeting_id = \(id) AND l.state IN ('linked', 'orphaned'))")
        }
        arguments["limit"] = query.limit
        arguments["offset"] = query.offset
        let sql = """
            SELECT \(id) FROM \(source) \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY \(member ? "m.key" : query.newestFirst ? "\(start) DESC, \(id) DESC" : "\(start), \(id)") LIMIT :limit OFFSET :offset
            """
        return (sql, StatementArguments(arguments))
    }

    public func meeting(id: Int64, visibleTo userID: Int64?) async throws -> MeetingDetail {
        try await writer.read { db in
            // Cached statements: preparing one (and GRDB's authorizer reading its tables) cost
            // more than running it for one meeting.
            let visible = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM meetings m WHERE m.id = :id AND \(CatalogSQL.meetingVisible(to: ":v"))"),
                arguments: ["id": id, "v": userID]) ?? false
            guard visible else { throw StoreError.notFound(entity: "meeting", reference: String(id)) }
            let (summary, attendees) = try Self.meetingSummaryAndAttendees(db, id: id)
            let recordings = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                    SELECT r.id, r.title, r.recorded_at, r.duration, u.name AS owner_name, l.state, l.method, l.score
                    FROM links l JOIN recordings r ON r.id = l.recording_id LEFT JOIN users u ON u.id = r.owner_id
                    WHERE l.meeting_id = ? AND l.state IN ('linked', 'orphaned') ORDER BY r.recorded_at, r.id
                    """),
                arguments: [id]
            ).map { row in
                MeetingRecording(
                    id: row["id"], title: row["title"], recordedAt: (row["recorded_at"] as Int64?).map(Self.date(milliseconds:)),
                    duration: row["duration"], owner: row["owner_name"], state: LinkState(rawValue: row["state"]) ?? .linked,
                    method: (row["method"] as String?).flatMap(LinkMethod.init(rawValue:)), score: row["score"])
            }
            return MeetingDetail(meeting: summary, attendees: attendees, recordings: recordings)
        }
    }

    /// An FTS5 expression: the words as one phrase, or each as a prefix, all required.
    static func matchExpression(_ words: [String], phrase: Bool) -> String {
        phrase ? "\"" + words.joined(separator: " ") + "\"" : words.map { "\"\($0)\"*" }.joined(separator: " ")
    }

    public func search(_ text: String, visibleTo userID: Int64?, offset: Int, limit: Int) async throws -> [SearchHit] {
        guard let terms = try SearchTerms.forStore(text) else { return [] }
        let match = terms.matchExpression
        // One word ranks as bm25 without the inverse document frequency bm25 counts by walking
        // every row holding the word (the same order: that factor is the same for every row).
        let oneWord = terms.words.count == 1
        let candidates = SearchHit.rankedAmongNewest
        let generation = visibleSetsGeneration
        return try await writer.read { db in
            // A member's hits are among their visible meetings and recordings, held by id.
            var visibleMeetings: [Int64] = []
            var visibleRecordings: [Int64] = []
            if let userID {
                visibleMeetings = try visibleMeetingIDs(db, of: userID, generation: generation)
                visibleRecordings = try visibleRecordingIDs(db, of: userID, generation: generation)
            }
            let arguments: StatementArguments = ["match": match, "limit": offset + limit, "candidates": candidates]
            // Ranked among the newest matches only: bm25 over every match of a word found in a
            // million meetings took seconds. Up to `candidates` matches, that is all of them.
            let meetings = try Self.rows(
                of: db.cachedStatement(sql: Self.meetingSearch(forMember: userID != nil, oneWord: oneWord)), arguments,
                held: userID == nil ? nil : visibleMeetings
            ).map {
                SearchHit(kind: "meeting", id: $0["id"], title: $0["title"], snippet: $0["snippet"],
                          start: ($0["starts_at"] as Int64?).map(Self.date(milliseconds:)),
                          rankedAmongNewest: ($0["matches"] as Int) >= candidates ? candidates : nil)
            }
            let recordings = try Self.rows(
                of: db.cachedStatement(sql: Self.recordingSearch(forMember: userID != nil, oneWord: oneWord)), arguments,
                held: userID == nil ? nil : visibleRecordings
            ).map {
                SearchHit(kind: "recording", id: $0["id"], title: $0["title"], snippet: $0["snippet"],
                          start: ($0["recorded_at"] as Int64?).map(Self.date(milliseconds:)),
                          rankedAmongNewest: ($0["matches"] as Int) >= candidates ? candidates : nil)
            }
            // Ranks of the two tables do not compare: meetings come first, then recordings.
            return Array((meetings + recordings).dropFirst(offset).prefix(limit))
        }
    }

    /// The statement of a search's meeting hits: the newest `:candidates` matches (for a member,
    /// among the ids bound to `:held`, see ``rows(of:_:held:)``), ranked, the first `:limit`, with how many
    /// candidates there were; a search of `oneWord` ranks with `steno_term_rank`, bm25's order
    /// for one phrase.
    static func meetingSearch(forMember: Bool, oneWord: Bool = false) -> String {
        """
        SELECT id, title, starts_at, snippet, count(*) OVER () AS matches FROM (
            SELECT m.id, m.title, m.starts_at, snippet(meeting_search, -1, '[', ']', '…', 8) AS snippet,
                \(oneWord ? "steno_term_rank(meeting_search)" : "meeting_search.rank") AS rank
            FROM meeting_search JOIN meetings m ON m.id = meeting_search.rowid
            WHERE meeting_search MATCH :match \(forMember ? "AND steno_held(:held, meeting_search.rowid)" : "")
            ORDER BY meeting_search.rowid DESC LIMIT :candidates)
        ORDER BY rank, id DESC LIMIT :limit
        """
    }

    /// The statement of a search's recording hits, as ``meetingSearch(forMember:oneWord:)``.
    static func recordingSearch(forMember: Bool, oneWord: Bool = false) -> String {
        """
        SELECT id, title, recorded_at, snippet, count(*) OVER () AS matches FROM (
            SELECT r.id, coalesce(r.title, recording_search.path, '') AS title, r.recorded_at,
                snippet(recording_search, -1, '[', ']', '…', 8) AS snippet,
                \(oneWord ? "steno_term_rank(recording_search)" : "recording_search.rank") AS rank
            FROM recording_search JOIN recordings r ON r.id = recording_search.rowid
            WHERE recording_search MATCH :match \(forMember ? "AND steno_held(:held, recording_search.rowid)" : "")
            ORDER BY recording_search.rowid DESC LIMIT :candidates)
        ORDER BY rank, id DESC LIMIT :limit
        """
    }
}
