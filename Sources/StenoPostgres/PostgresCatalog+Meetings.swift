import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Meetings with their attendees and recordings, visibility enforced in the queries (the
/// fragments of `CatalogSQL+Visibility.swift`, which both backends render; a member's
/// listings read their held set, see PostgresCatalog+MemberSets.swift). A listing reads
/// one snapshot (`REPEATABLE READ`) and builds all its summaries with four set-based queries,
/// not four per meeting: each query is a round trip to the server.
extension PostgresCatalog: MeetingStore {
    public func meetings(_ query: MeetingQuery) async throws -> [MeetingSummary] {
        try await snapshot { tx in
            var ids: [Int64] = []
            if let viewer = query.visibleTo {
                // A member's page: their visible meetings in the range, a chunk at a time.
                let stamp = try await Self.snapshotStamp(tx)
                let keys = try await visibleMeetingKeys(tx, of: viewer, stamp: stamp)
                // `--with` and `--recorded` narrowed in memory by what is held with the set;
                // `--title` stays the statement's (ILIKE folds letters as the server's locale does).
                let holds = keys.count <= MemberPageCandidates.heldDetailsLimit
                let people = holds && query.withEmail != nil ? try await heldMeetingPeople(tx, of: viewer, keys: keys, stamp: stamp) : nil
                let recorded = holds && query.recorded != nil ? try await heldMeetingRecordings(tx, of: viewer, keys: keys, stamp: stamp) : nil
                let candidates = MemberPageCandidates.narrowed(keys, for: query, people: people, recorded: recorded)
                var chunks = MemberPageCandidates.Chunks(candidates.ids, wanted: query.offset + query.limit)
                var chunkQuery = candidates.remaining(of: query)
                chunkQuery.offset = 0
                while let chunk = chunks.next(found: ids.count) {
                    chunkQuery.limit = chunk.wanted
                    ids += try await tx.rows(Self.meetingListing(chunkQuery, among: chunk.ids)).map { try $0.decode(Int64.self) }
                }
                ids = Array(ids.dropFirst(query.offset).prefix(query.limit))
            } else {
                ids = try await tx.rows(Self.meetingListing(query)).map { try $0.decode(Int64.self) }
            }
            let summaries = try await Self.meetingSummaries(tx, ids: ids)
            return ids.compactMap { summaries[$0] }
        }
    }

    /// The statement listing the ids of a page of meetings (its plan is checked by tests), the
    /// page continuing after `query.after` along the meetings' starts, or with `--with` along
    /// the address's rows of `meeting_people` (one index walk in the listing's order, where the
    /// address's meetings gathered into a set cost every page 20,000 ids). Only the query's own
    /// conditions are written, so the planner sees each as a join or an index range rather
    /// than a test on every meeting. For a member (`query.visibleTo`), only meetings of
    /// `visible` (some of theirs, in listing order) are listed, in that order: the statement
    /// never reads the visible set itself.
    static func meetingListing(_ query: MeetingQuery, among visible: [Int64] = []) -> PostgresQuery {
        var values = NumberedValues()
        var conditions = ["true"]
        // The rows walked, and the columns of their order.
        var source = "meetings m"
        var start = "m.starts_at", id = "m.id"
        let member = query.visibleTo != nil
        if member {
            // A member's meetings are the ids given, in the order given (their held set's,
            // narrowed to the range and position already): no meeting row is read unless a
            // condition needs it (a title). Joined to the meetings to sort them, the planner
            // would rather walk every meeting by start testing each against the ids.
            source = """
                (SELECT v.id, v.key, (SELECT title FROM meetings WHERE id = v.id) AS title
                 FROM unnest(\(values.bind(visible, as: "bigint[]"))) WITH ORDINALITY AS v(id, key)) m
                """
            if let email = query.withEmail {
                conditions.append(
                    "EXISTS (SELECT 1 FROM meeting_people p WHERE p.meeting_id = m.id AND p.email = \(values.bind(email, as: "citext")))")
            }
        } else if let email = query.withEmail {
            source = "meeting_people p JOIN meetings m ON m.id = p.meeting_id"
            (start, id) = ("p.starts_at", "p.meeting_id")
            conditions.append("p.email = \(values.bind(email, as: "citext"))")
        }
        if let from = query.from, !member { conditions.append("\(start) >= \(values.bind(milliseconds(from), as: "bigint"))") }
        if let to = query.to, !member { conditions.append("\(start) < \(values.bind(milliseconds(to), as: "bigint"))") }
        if let after = query.after, !member {
            let afterID = values.bind(after.id, as: "bigint")
            // Meetings without a start come first (ascending) or last (newest first).
            switch (after.startMilliseconds.map { values.bind($0, as: "bigint") }, query.newestFirst) {
            case (let afterStart?, false):
                // The start's bound apart, so the walk starts there: PostgreSQL takes no bound from an OR.
                conditions.append("\(start) >= \(afterStart) AND (\(start) > \(afterStart) OR \(id) > \(afterID))")
            case (nil, false): conditions.append("(\(start) IS NOT NULL OR \(id) > \(afterID))")
            case (let afterStart?, true):
                conditions.append("(\(start) < \(afterStart) OR (\(start) = \(afterStart) AND \(id) < \(afterID)) OR \(start) IS NULL)")
            case (nil, true): conditions.append("(\(start) IS NULL AND \(id) < \(afterID))")
            }
        }
        if query.hideGone { conditions.append(liveOrRecorded) }
        if let attendees = attendeeMatches(query.withAny, values: &values) { conditions.append(attendees) }
        if let title = query.titleContains {
            conditions.append("m.title ILIKE \(values.bind(CatalogSQL.likePattern(containing: title), as: "text")) ESCAPE '\\'")
        }
        if let recorded = query.recorded {
            conditions.append((recorded ? "" : "NOT ") + "EXISTS (SELECT 1 FROM links l WHERE l.meeting_id = m.id AND l.state IN ('linked', 'orphaned'))")
        }
        let limit = values.bind(Int64(max(0, query.limit)), as: "bigint")
        let offset = values.bind(Int64(max(0, query.offset)), as: "bigint")
        return values.query(
            """
            SELECT m.id FROM \(source) WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(member ? "m.key" : query.newestFirst ? "\(start) DESC NULLS LAST, \(id) DESC" : "\(start) NULLS FIRST, \(id)") LIMIT \(limit) OFFSET \(offset)
            """)
    }

    /// The `withAny` condition (nil without matches): any of the matches, each an email's
    /// meetings as a set, or a name's or domain's candidates from the full-text index checked
    /// against their own attendees.
    static func attendeeMatches(_ matches: [AttendeeMatch], values: inout NumberedValues) -> String? {
        guard !matches.isEmpty else { return nil }
        var alternatives: [String] = []
        for match in matches {
            if case .email(let email) = match {
                alternatives.append("m.id IN (\(CatalogSQL.meetingIDs(withEmail: values.bind(email, as: "citext"))))")
            } else if let pattern = match.likePattern, let search = match.searchWords {
                let words = search.words.flatMap(SearchLexemes.words)
                // The lexemes hold no positions, so a domain's words are all required rather than
                // adjacent; the pattern then checks the address itself.
                let query = search.isPhrase
                    ? words.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: " & ")
                    : SearchLexemes.prefixQuery(words)
                alternatives.append(
                    """
                    (m.id IN (SELECT s.meeting_id FROM meeting_search s WHERE s.lexemes @@ \(values.bind(query, as: "tsquery")))
                     AND \(CatalogSQL.attendeeLike(values.bind(pattern, as: "text"), names: match.matchesNames, fold: PostgresNameFolding.sql)))
                    """)
            }
        }
        return alternatives.isEmpty ? "false" : "(" + alternatives.joined(separator: " OR ") + ")"
    }

    /// Leaves out meetings no calendar holds any more, unless a recording is linked to them.
    /// Scalar subqueries (NULL when nothing is found), not EXISTS: under an OR, the planner
    /// may turn an EXISTS into a hash of every live event, built before the first row of a
    /// page (40 ms at 100,000 meetings); these stay index lookups for the rows a page reads.
    static let liveOrRecorded = """
        ((SELECT true FROM events e WHERE e.meeting_id = m.id AND e.deleted_at IS NULL LIMIT 1)
         OR (SELECT true FROM links l WHERE l.meeting_id = m.id AND l.state IN ('linked', 'orphaned') LIMIT 1))
        """

    public func meeting(id: Int64, visibleTo userID: Int64?) async throws -> MeetingDetail {
        try await snapshot { tx in
            guard
                try await tx.row(
                    .numbered("SELECT 1 FROM meetings m WHERE m.id = $2 AND \(CatalogSQL.meetingVisible(to: "$1::bigint"))", [userID, id])
                ) != nil
            else { throw StoreError.notFound(entity: "meeting", reference: String(id)) }
            let meeting = try await Self.summariesAndAttendees(tx, ids: [id])
            guard let summary = meeting.summaries[id] else { throw StoreError.notFound(entity: "meeting", reference: String(id)) }
            let recordings = try await tx.rows(
                """
                SELECT r.id, r.title, r.recorded_at, r.duration, u.name::text, l.state, l.method, l.score
                FROM links l JOIN recordings r ON r.id = l.recording_id LEFT JOIN users u ON u.id = r.owner_id
                WHERE l.meeting_id = \(id) AND l.state IN ('linked', 'orphaned') ORDER BY r.recorded_at NULLS FIRST, r.id
                """
            ).map { row in
                let (id, title, recordedAt, duration, owner, state, method, score) = try row.decode(
                    (Int64, String?, Int64?, Double?, String?, String, String?, Double?).self)
                return MeetingRecording(
                    id: id, title: title, recordedAt: recordedAt.map(Self.date(milliseconds:)), duration: duration, owner: owner,
                    state: LinkState(rawValue: state) ?? .linked, method: method.flatMap(LinkMethod.init(rawValue:)), score: score)
            }
            return MeetingDetail(meeting: summary, attendees: meeting.attendees[id] ?? [], recordings: recordings)
        }
    }

    /// Runs `body` on one read-only snapshot, so a meeting's parts agree with each other.
    func snapshot<Result: Sendable>(_ body: (PostgresTransaction) async throws -> Result) async throws -> Result {
        try await transaction { tx in
            try await tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return try await body(tx)
        }
    }

    /// An attendee from its stored columns.
    static func storedAttendee(email: String, name: String?, role: String, response: String) -> Attendee {
        Attendee(email: email, name: name, role: AttendeeRole(rawValue: role) ?? .required, response: AttendeeResponse(rawValue: response) ?? .none)
    }
}
