import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog {
    /// The columns of a candidate event, with the owner's relation to it (`?1` = owner id).
    static let candidateSelect = """
        SELECT e.id, e.meeting_id, e.remote_id, e.ical_uid, \(StoredEventKeys.seriesUID), m.identity, e.title, e.starts_at, e.ends_at,
            e.is_all_day, e.status, e.online_meeting_url,
            coalesce(a.owner_id = ?1, 0) AS own,
            coalesce(e.organizer_email IN (SELECT email FROM user_emails WHERE user_id = ?1), 0) AS organizes,
            (SELECT ea.response FROM event_attendees ea JOIN user_emails ue ON ue.email = ea.email
             WHERE ea.event_id = e.id AND ue.user_id = ?1 LIMIT 1) AS response,
            \(MeetingMembership.speaksForOwner("?1")) AS speaks
        FROM events e JOIN meetings m ON m.id = e.meeting_id
        JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
        """

    /// Only events the owner may link to (`?1` = owner id).
    static let visibleToOwner = """
        (a.owner_id = ?1
         OR e.organizer_email IN (SELECT email FROM user_emails WHERE user_id = ?1)
         OR EXISTS (SELECT 1 FROM event_attendees ea JOIN user_emails ue ON ue.email = ea.email
                    WHERE ea.event_id = e.id AND ue.user_id = ?1))
        """

    /// The candidate of a row of ``candidateSelect``. Columns are read by position: bulk
    /// linking decodes millions of rows, and a lookup by name costs more than the query.
    static func candidate(_ row: Row) -> LinkCandidate {
        let relation = LinkCandidate.OwnerRelation(own: row[12], organizes: row[13], response: row[14], speaksForOwner: row[15])
        return LinkCandidate(
            meetingID: row[1], eventID: row[0], eventRemoteID: row[2], iCalUID: row[3], seriesUID: row[4], meetingIdentity: row[5],
            title: row[6], start: date(milliseconds: row[7]), end: date(milliseconds: row[8]), isAllDay: row[9],
            status: (row[10] as String?).flatMap(EventStatus.init(rawValue:)) ?? .confirmed, onlineMeetingURL: row[11],
            ownerRelation: relation)
    }

    /// The candidates of a statement selecting ``candidateSelect``, read through a cursor.
    static func candidates(_ statement: Statement, _ arguments: StatementArguments) throws -> [LinkCandidate] {
        var result: [LinkCandidate] = []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() { result.append(candidate(row)) }
        return result
    }

    public func linkFacts(recordingID: Int64) async throws -> (facts: RecordingLinkFacts, ownerID: Int64?)? {
        try await writer.read { db in
            guard let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT id, owner_id, recorded_at, duration, title, ical_uid_hint, event_id_hint,
                        coalesce(json_extract(sidecar, '$.onlineMeetingURL'), json_extract(sidecar, '$.onlineMeetingUrl'),
                                 json_extract(sidecar, '$.joinUrl'), json_extract(sidecar, '$.meetingUrl')) AS url
                    FROM recordings WHERE id = ? AND status = 'ready' AND recorded_at IS NOT NULL
                    """,
                arguments: [recordingID])
            else { return nil }
            let facts = RecordingLinkFacts(
                recordingID: row["id"], recordedAt: Self.date(milliseconds: row["recorded_at"]), duration: row["duration"] ?? 0,
                title: row["title"], iCalUIDHint: row["ical_uid_hint"], eventIDHint: row["event_id_hint"], onlineMeetingURL: row["url"])
            return (facts, row["owner_id"])
        }
    }

    public func linkCandidates(ownerID: Int64?, window: DateInterval) async throws -> [LinkCandidate] {
        try await writer.read { db in try Self.linkCandidates(db, ownerID: ownerID, window: window) }
    }

    /// Events visible to the owner overlapping `window`, one per meeting. The three ways an
    /// event is visible (own calendar, organiser, invitee) are each an indexed lookup; the
    /// lower bound on starts_at keeps the time ranges short (longer events are all-day blocks,
    /// linked only by identity).
    static func linkCandidates(_ db: Database, ownerID: Int64?, window: DateInterval) throws -> [LinkCandidate] {
        let statement = try db.cachedStatement(
            sql: """
                WITH owner_emails AS (SELECT email FROM user_emails WHERE user_id = ?1),
                visible AS (
                    SELECT e.id FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
                    WHERE a.owner_id = ?1 AND e.deleted_at IS NULL AND e.starts_at < ?2 AND e.starts_at >= ?4
                    UNION
                    SELECT e.id FROM events e WHERE e.deleted_at IS NULL AND e.organizer_email IN (SELECT email FROM owner_emails)
                      AND e.starts_at < ?2 AND e.starts_at >= ?4
                    UNION
                    SELECT ea.event_id FROM event_attendees ea JOIN events e ON e.id = ea.event_id
                    WHERE ea.email IN (SELECT email FROM owner_emails) AND e.starts_at < ?2 AND e.starts_at >= ?4)
                \(candidateSelect)
                WHERE e.id IN (SELECT id FROM visible)
                  AND e.deleted_at IS NULL AND e.starts_at < ?2 AND e.starts_at >= ?4 AND e.ends_at > ?3
                """)
        return LinkCandidate.onePerMeeting(
            try candidates(
                statement,
                [ownerID ?? -1, milliseconds(window.end), milliseconds(window.start), milliseconds(window.start) - 7 * 86_400_000]))
    }

    public func linkCandidateSpans(ownerID: Int64?, window: DateInterval) async throws -> [EventSpan] {
        try await writer.read { db in
            // The three ways of ``linkCandidates``, each reading only the event's times.
            let statement = try db.cachedStatement(
                sql: """
                    WITH owner_emails AS (SELECT email FROM user_emails WHERE user_id = ?1)
                    SELECT e.id, e.starts_at, e.ends_at
                    FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
                    WHERE a.owner_id = ?1 AND e.deleted_at IS NULL AND e.starts_at < ?2 AND e.starts_at >= ?4 AND e.ends_at > ?3
                    UNION ALL
                    SELECT e.id, e.starts_at, e.ends_at FROM events e
                    WHERE e.deleted_at IS NULL AND e.organizer_email IN (SELECT email FROM owner_emails)
                      AND e.starts_at < ?2 AND e.starts_at >= ?4 AND e.ends_at > ?3
                    UNION ALL
                    SELECT e.id, e.starts_at, e.ends_at FROM event_attendees ea JOIN events e ON e.id = ea.event_id
                    WHERE ea.email IN (SELECT email FROM owner_emails)
                      AND e.deleted_at IS NULL AND e.starts_at < ?2 AND e.starts_at >= ?4 AND e.ends_at > ?3
                    """)
            let arguments: StatementArguments = [
                ownerID ?? -1, Self.milliseconds(window.end), Self.milliseconds(window.start),
                Self.milliseconds(window.start) - 7 * 86_400_000,
            ]
            var spans: [EventSpan] = []
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            while let row = try rows.next() {
                spans.append(EventSpan(eventID: row[0], start: Self.date(milliseconds: row[1]), end: Self.date(milliseconds: row[2])))
            }
            return spans
        }
    }

    public func identityCandidates(iCalUID: String?, eventID: String?, ownerID: Int64?) async throws -> [LinkCandidate] {
        guard iCalUID?.isEmpty == false || eventID?.isEmpty == false else { return [] }
        return try await writer.read { db in
            let rows = try Row.fetchAll(
                db, sql: "\(Self.candidateSelect) WHERE e.deleted_at IS NULL AND e.id IN (\(Self.eventsByIdentity))",
                arguments: [ownerID ?? -1, iCalUID, eventID])
            return LinkCandidate.onePerMeeting(rows.map(Self.candidate))
        }
    }

    /// The ids of events whose iCalUID, series UID or meeting identity is `?2`, or whose
    /// remote id is `?3`: one indexed lookup each. Written as a single `OR` across events and
    /// meetings, SQLite could use no index and read every event for every hinted recording
    /// (0.2 s on a million events). Events left out of the iCalUID index are found by their
    /// meeting's identity (``StoredEventKeys``).
    static let eventsByIdentity = """
        SELECT id FROM events WHERE ical_uid = ?2 AND \(StoredEventKeys.iCalUIDIndexed)
        UNION SELECT id FROM events WHERE series_uid = ?2
        UNION SELECT id FROM events WHERE meeting_id IN (SELECT id FROM meetings WHERE identity = ?2)
        UNION SELECT id FROM events WHERE calendar_id IN (SELECT id FROM calendars) AND remote_id = ?3
        """

    public func meetingEvents(meetingID: Int64, exceptEventID: Int64?, ownerID: Int64?) async throws -> [LinkCandidate] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: "\(Self.candidateSelect) WHERE e.deleted_at IS NULL AND e.meeting_id = ?2 AND e.id != coalesce(?3, -1) ORDER BY e.id",
                arguments: [ownerID ?? -1, meetingID, exceptEventID]
            ).map(Self.candidate)
        }
    }

    public func liveEvent(id: Int64, ownerID: Int64?) async throws -> LinkCandidate? {
        try await writer.read { db in
            try Row.fetchOne(
                db, sql: "\(Self.candidateSelect) WHERE e.deleted_at IS NULL AND e.id = ?2", arguments: [ownerID ?? -1, id]
            ).map(Self.candidate)
        }
    }

    public func link(recordingID: Int64) async throws -> ExistingLink? {
        try await writer.read { db in try Self.fetchLink(db, recordingID: recordingID) }
    }

    static func fetchLink(_ db: Database, recordingID: Int64) throws -> ExistingLink? {
        try Row.fetchOne(db.cachedStatement(sql: "\(linkColumns) WHERE recording_id = ?"), arguments: [recordingID]).map(existingLink)
    }

    /// The columns ``existingLink(_:)`` reads, by position.
    static let linkColumns = """
        SELECT recording_id, state, method, is_manual, meeting_id, event_id, cached_title, cached_starts_at, cached_ends_at FROM links
        """

    static func existingLink(_ row: Row) -> ExistingLink {
        ExistingLink(
            recordingID: row[0], state: (row[1] as String?).flatMap(LinkState.init(rawValue:)) ?? .unlinked,
            method: (row[2] as String?).flatMap(LinkMethod.init(rawValue:)), isManual: row[3], meetingID: row[4], eventID: row[5],
            cachedTitle: row[6], cachedStart: (row[7] as Int64?).map(date(milliseconds:)),
            cachedEnd: (row[8] as Int64?).map(date(milliseconds:)))
    }

    public func unsettledRecordings(recordedWithin window: DateInterval?) async throws -> [Int64] {
        try await writer.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT r.id FROM recordings r LEFT JOIN links l ON l.recording_id = r.id
                    WHERE r.status = 'ready' AND r.recorded_at IS NOT NULL
                      AND (l.recording_id IS NULL OR (l.is_manual = 0 AND l.state IN ('pending', 'unlinked', 'ambiguous')))
                      AND (?1 IS NULL OR (r.recorded_at < ?2 AND r.recorded_at + coalesce(r.duration, 0) * 1000 > ?1))
                    ORDER BY r.id
                    """,
                arguments: [window.map { Self.milliseconds($0.start) }, window.map { Self.milliseconds($0.end) }])
        }
    }

    public func linksTouchedByEvents(changedSince since: Date) async throws -> [Int64] {
        try await writer.read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT l.recording_id FROM links l
                    JOIN events e ON e.meeting_id = l.meeting_id OR e.id = l.event_id
                    WHERE e.updated_at >= ? AND l.state IN ('linked', 'orphaned')
                    ORDER BY l.recording_id
                    """,
                arguments: [Self.milliseconds(since)])
        }
    }

    public func linkedRecordings() async throws -> [Int64] {
        try await writer.read { db in
            try Int64.fetchAll(db, sql: "SELECT recording_id FROM links ORDER BY recording_id")
        }
    }

    public func changedEventSpan(since: Date) async throws -> DateInterval? {
        try await writer.read { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT min(starts_at) AS first, max(ends_at) AS last FROM events WHERE updated_at >= ?",
                arguments: [Self.milliseconds(since)]),
                let first = row["first"] as Int64?, let last = row["last"] as Int64?
            else { return nil }
            return DateInterval(start: Self.date(milliseconds: first), end: Self.date(milliseconds: max(first, last)))
        }
    }

    public func links(state: LinkState?, visibleTo userID: Int64?, afterRecordingID: Int64?, limit: Int) async throws -> [LinkSummary] {
        try await writer.read { db in
            var summaries: [LinkSummary] = []
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: Self.linkListing(forMember: userID != nil)),
                arguments: [afterRecordingID ?? 0, state?.rawValue, userID, limit])
            while let row = try rows.next() { summaries.append(Self.linkSummary(row)) }
            return summaries
        }
    }

    /// A row of ``linkListing(forMember:)``, read by position (a full listing reads tens of
    /// thousands: a lookup by name cost more than the value).
    static func linkSummary(_ row: Row) -> LinkSummary {
        LinkSummary(
            recording: row[0], recordingTitle: row[11], recordedAt: (row[12] as Int64?).map(date(milliseconds:)), owner: row[13],
            state: LinkState(rawValue: row[1]) ?? .unlinked, method: (row[2] as String?).flatMap(LinkMethod.init(rawValue:)),
            isManual: row[3], score: row[4], meeting: row[5], meetingTitle: row[6],
            meetingStart: (row[7] as Int64?).map(date(milliseconds:)), meetingEnd: (row[8] as Int64?).map(date(milliseconds:)),
            candidates: row[9], validatedAt: (row[10] as Int64?).map(date(milliseconds:)))
    }

    /// The statement of a links page, its columns read by ``linkSummary(_:)``: `?1` the recording after which it continues, `?2` a state
    /// or NULL, `?3` the member whose recordings' links these are, `?4` the page size.
    static func linkListing(forMember: Bool) -> String {
        """
        SELECT l.recording_id, l.state, l.method, l.is_manual, l.score, l.meeting_id, l.cached_title, l.cached_starts_at,
            l.cached_ends_at, l.candidates, l.validated_at, r.title, r.recorded_at, u.name FROM links l
        JOIN recordings r ON r.id = l.recording_id LEFT JOIN users u ON u.id = r.owner_id
        WHERE l.recording_id > ?1 AND (?2 IS NULL OR l.state = ?2)
            \(forMember ? "AND l.recording_id IN (SELECT id FROM recordings WHERE owner_id = ?3)" : "")
        ORDER BY l.recording_id LIMIT ?4
        """
    }

    public func linkHistory(recordingID: Int64) async throws -> [LinkHistoryEntry] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM link_history WHERE recording_id = ? ORDER BY at, id", arguments: [recordingID]).map {
                LinkHistoryEntry(
                    at: Self.date(milliseconds: $0["at"]), actor: $0["actor"], action: $0["action"],
                    fromState: ($0["from_state"] as String?).flatMap(LinkState.init(rawValue:)),
                    toState: ($0["to_state"] as String?).flatMap(LinkState.init(rawValue:)), fromMeeting: $0["from_meeting_id"],
                    toMeeting: $0["to_meeting_id"], method: ($0["method"] as String?).flatMap(LinkMethod.init(rawValue:)),
                    score: $0["score"], reason: $0["reason"])
            }
        }
    }

    public func linkAttendees(recordingID: Int64) async throws -> [Attendee] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT email, name, role, response FROM link_attendees WHERE recording_id = ? ORDER BY role = 'organizer' DESC, email",
                arguments: [recordingID]
            ).map(Self.attendee)
        }
    }

    public func linkFacts(recordingIDs: [Int64]) async throws -> [Int64: (facts: RecordingLinkFacts, ownerID: Int64?)] {
        try await writer.read { db in
            var result: [Int64: (facts: RecordingLinkFacts, ownerID: Int64?)] = [:]
            for chunk in Self.chunks(recordingIDs) {
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, owner_id, recorded_at, duration, title, ical_uid_hint, event_id_hint,
                            coalesce(json_extract(sidecar, '$.onlineMeetingURL'), json_extract(sidecar, '$.onlineMeetingUrl'),
                                     json_extract(sidecar, '$.joinUrl'), json_extract(sidecar, '$.meetingUrl')) AS url
                        FROM recordings WHERE id IN (\(databaseQuestionMarks(count: chunk.count))) AND status = 'ready' AND recorded_at IS NOT NULL
                        """,
                    arguments: StatementArguments(chunk))
                {
                    let facts = RecordingLinkFacts(
                        recordingID: row["id"], recordedAt: Self.date(milliseconds: row["recorded_at"]), duration: row["duration"] ?? 0,
                        title: row["title"], iCalUIDHint: row["ical_uid_hint"], eventIDHint: row["event_id_hint"], onlineMeetingURL: row["url"])
                    result[facts.recordingID] = (facts, row["owner_id"])
                }
            }
            return result
        }
    }

    public func links(recordingIDs: [Int64]) async throws -> [Int64: ExistingLink] {
        try await writer.read { db in
            var result: [Int64: ExistingLink] = [:]
            for chunk in Self.chunks(recordingIDs) {
                for row in try Row.fetchAll(
                    db, sql: "\(Self.linkColumns) WHERE recording_id IN (\(databaseQuestionMarks(count: chunk.count)))",
                    arguments: StatementArguments(chunk))
                {
                    let link = Self.existingLink(row)
                    result[link.recordingID] = link
                }
            }
            return result
        }
    }

    public func liveEvents(ids: [Int64], ownerID: Int64?) async throws -> [Int64: LinkCandidate] {
        try await writer.read { db in
            var result: [Int64: LinkCandidate] = [:]
            for chunk in Self.chunks(ids) {
                for row in try Row.fetchAll(
                    db,
                    sql: "\(Self.candidateSelect) WHERE e.deleted_at IS NULL AND e.id IN (\(databaseQuestionMarks(count: chunk.count)))",
                    arguments: StatementArguments([ownerID ?? -1] + chunk))
                {
                    let candidate = Self.candidate(row)
                    result[candidate.eventID] = candidate
                }
            }
            return result
        }
    }

    public func meetingEvents(meetingIDs: [Int64], ownerID: Int64?) async throws -> [Int64: [LinkCandidate]] {
        try await writer.read { db in
            var result: [Int64: [LinkCandidate]] = [:]
            for chunk in Self.chunks(meetingIDs) {
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        \(Self.candidateSelect) WHERE e.deleted_at IS NULL AND e.meeting_id IN (\(databaseQuestionMarks(count: chunk.count)))
                        ORDER BY e.id
                        """,
                    arguments: StatementArguments([ownerID ?? -1] + chunk))
                {
                    let candidate = Self.candidate(row)
                    result[candidate.meetingID, default: []].append(candidate)
                }
            }
            return result
        }
    }

    /// Id lists cut to a size SQLite's parameter limit takes.
    static func chunks(_ ids: [Int64], size: Int = 500) -> [[Int64]] {
        stride(from: 0, to: ids.count, by: size).map { Array(ids[$0..<min($0 + size, ids.count)]) }
    }
}
