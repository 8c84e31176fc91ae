import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// What linking and revalidation read: a recording's facts, the events its owner may link to
/// (with how the owner relates to each), and the stored links. The same queries as SQLite's,
/// with id lists bound as one array (`= ANY($n)`) instead of cut into chunks.
extension PostgresCatalog: LinkStore {
    /// The columns of a candidate event, with the owner's relation to it (`$1` = owner id).
    static let candidateSelect = """
        SELECT e.id, e.meeting_id, e.remote_id, e.ical_uid, \(StoredEventKeys.seriesUID), m.identity, e.title, e.starts_at, e.ends_at,
            e.is_all_day, e.status, e.online_meeting_url,
            coalesce(a.owner_id = $1, false) AS own,
            coalesce(e.organizer_email IN (SELECT email FROM user_emails WHERE user_id = $1), false) AS organizes,
            (SELECT ea.response FROM event_attendees ea JOIN user_emails ue ON ue.email = ea.email
             WHERE ea.event_id = e.id AND ue.user_id = $1 LIMIT 1) AS response,
            \(MeetingMembership.speaksForOwner("$1")) AS speaks
        FROM events e JOIN meetings m ON m.id = e.meeting_id
        JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
        """

    /// The candidate of a row of ``candidateSelect``, read by position.
    static func candidate(_ row: PostgresRow) throws -> LinkCandidate {
        let r = row.makeRandomAccess()
        return LinkCandidate(
            meetingID: try r[1].decode(Int64.self), eventID: try r[0].decode(Int64.self), eventRemoteID: try r[2].decode(String.self),
            iCalUID: try r[3].decode(String?.self), seriesUID: try r[4].decode(String?.self), meetingIdentity: try r[5].decode(String.self),
            title: try r[6].decode(String.self), start: date(milliseconds: try r[7].decode(Int64.self)),
            end: date(milliseconds: try r[8].decode(Int64.self)), isAllDay: try r[9].decode(Bool.self),
            status: EventStatus(rawValue: try r[10].decode(String.self)) ?? .confirmed, onlineMeetingURL: try r[11].decode(String?.self),
            ownerRelation: LinkCandidate.OwnerRelation(
                own: try r[12].decode(Bool?.self), organizes: try r[13].decode(Bool?.self), response: try r[14].decode(String?.self),
                speaksForOwner: try r[15].decode(Bool?.self)))
    }

    /// The candidates of ``candidateSelect`` narrowed by `condition` (`$1` = owner, then `values`).
    func candidates(where condition: String, ownerID: Int64?, _ values: [(any PostgresDynamicTypeEncodable)?]) async throws -> [LinkCandidate] {
        try await rows(.numbered("\(Self.candidateSelect) WHERE \(condition)", [ownerID ?? -1] + values)).map(Self.candidate)
    }

    /// Ready recordings with a start time, as the linker sees them.
    func linkFactRows(_ ids: [Int64]) async throws -> [(facts: RecordingLinkFacts, ownerID: Int64?)] {
        try await rows(
            """
            SELECT id, owner_id, recorded_at, duration, title, ical_uid_hint, event_id_hint,
                coalesce(sidecar::jsonb ->> 'onlineMeetingURL', sidecar::jsonb ->> 'onlineMeetingUrl',
                         sidecar::jsonb ->> 'joinUrl', sidecar::jsonb ->> 'meetingUrl') AS url
            FROM recordings WHERE id = ANY(\(ids)) AND status = 'ready' AND recorded_at IS NOT NULL
            """
        ).map { row in
            let (id, owner, recordedAt, duration, title, iCalUID, eventID, url) = try row.decode(
                (Int64, Int64?, Int64, Double?, String?, String?, String?, String?).self)
            let facts = RecordingLinkFacts(
                recordingID: id, recordedAt: Self.date(milliseconds: recordedAt), duration: duration ?? 0, title: title,
                iCalUIDHint: iCalUID, eventIDHint: eventID, onlineMeetingURL: url)
            return (facts, owner)
        }
    }

    public func linkFacts(recordingID: Int64) async throws -> (facts: RecordingLinkFacts, ownerID: Int64?)? {
        try await linkFactRows([recordingID]).first
    }

    public func linkFacts(recordingIDs: [Int64]) async throws -> [Int64: (facts: RecordingLinkFacts, ownerID: Int64?)] {
        var result: [Int64: (facts: RecordingLinkFacts, ownerID: Int64?)] = [:]
        for found in try await linkFactRows(recordingIDs) { result[found.facts.recordingID] = found }
        return result
    }

    /// The ids of the events the owner (`$1`) relates to starting in [`$4`, `$2`): own calendar,
    /// organiser, invitee; each an indexed lookup. The lower bound keeps the time ranges short
    /// (longer events are all-day blocks, linked only by identity).
    static let visibleEventsStarting = """
        SELECT e.id FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
        WHERE a.owner_id = $1 AND e.deleted_at IS NULL AND e.starts_at < $2 AND e.starts_at >= $4
        UNION
        SELECT e.id FROM events e WHERE e.deleted_at IS NULL AND e.organizer_email IN (SELECT email FROM user_emails WHERE user_id = $1)
          AND e.starts_at < $2 AND e.starts_at >= $4
        UNION
        SELECT ea.event_id FROM event_attendees ea JOIN events e ON e.id = ea.event_id
        WHERE ea.email IN (SELECT email FROM user_emails WHERE user_id = $1) AND e.starts_at < $2 AND e.starts_at >= $4
        """

    /// The window's bounds as the candidate queries bind them after the owner: end, start, and
    /// the earliest start a candidate may have (a week before the window).
    static func windowValues(_ window: DateInterval) -> [(any PostgresDynamicTypeEncodable)?] {
        [milliseconds(window.end), milliseconds(window.start), milliseconds(window.start) - 7 * 86_400_000]
    }

    public func linkCandidates(ownerID: Int64?, window: DateInterval) async throws -> [LinkCandidate] {
        LinkCandidate.onePerMeeting(
            try await candidates(
                where: """
                    e.id IN (\(Self.visibleEventsStarting))
                      AND e.deleted_at IS NULL AND e.starts_at < $2 AND e.starts_at >= $4 AND e.ends_at > $3
                    """,
                ownerID: ownerID, Self.windowValues(window)))
    }

    public func linkCandidateSpans(ownerID: Int64?, window: DateInterval) async throws -> [EventSpan] {
        // The three ways of ``linkCandidates``, each reading only the event's times.
        try await rows(
            .numbered(
                """
                SELECT e.id, e.starts_at, e.ends_at
                FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
                WHERE a.owner_id = $1 AND e.deleted_at IS NULL AND e.starts_at < $2 AND e.starts_at >= $4 AND e.ends_at > $3
                UNION ALL
                SELECT e.id, e.starts_at, e.ends_at FROM events e
                WHERE e.deleted_at IS NULL AND e.organizer_email IN (SELECT email FROM user_emails WHERE user_id = $1)
                  AND e.starts_at < $2 AND e.starts_at >= $4 AND e.ends_at > $3
                UNION ALL
                SELECT e.id, e.starts_at, e.ends_at FROM event_attendees ea JOIN events e ON e.id = ea.event_id
                WHERE ea.email IN (SELECT email FROM user_emails WHERE user_id = $1)
                  AND e.deleted_at IS NULL AND e.starts_at < $2 AND e.starts_at >= $4 AND e.ends_at > $3
                """,
                [ownerID ?? -1] + Self.windowValues(window))
        ).map { row in
            let (id, start, end) = try row.decode((Int64, Int64, Int64).self)
            return EventSpan(eventID: id, start: Self.date(milliseconds: start), end: Self.date(milliseconds: end))
        }
    }

    public func identityCandidates(iCalUID: String?, eventID: String?, ownerID: Int64?) async throws -> [LinkCandidate] {
        guard iCalUID?.isEmpty == false || eventID?.isEmpty == false else { return [] }
        // One indexed lookup per key (see SQLite's eventsByIdentity); the remote id is unique
        // per calendar, so it is looked up calendar by calendar.
        return LinkCandidate.onePerMeeting(
            try await candidates(
                where: """
                    e.deleted_at IS NULL AND e.id IN (
                        SELECT id FROM events WHERE ical_uid = $2::text AND \(StoredEventKeys.iCalUIDIndexed)
                        UNION SELECT id FROM events WHERE series_uid = $2::text
                        UNION SELECT id FROM events WHERE meeting_id IN (SELECT id FROM meetings WHERE identity = $2::text)
                        UNION SELECT id FROM events WHERE calendar_id IN (SELECT id FROM calendars) AND remote_id = $3::text)
                    """,
                ownerID: ownerID, [iCalUID, eventID]))
    }

    public func meetingEvents(meetingID: Int64, exceptEventID: Int64?, ownerID: Int64?) async throws -> [LinkCandidate] {
        try await candidates(
            where: "e.deleted_at IS NULL AND e.meeting_id = $2 AND e.id <> coalesce($3::bigint, -1) ORDER BY e.id", ownerID: ownerID,
            [meetingID, exceptEventID])
    }

    public func meetingEvents(meetingIDs: [Int64], ownerID: Int64?) async throws -> [Int64: [LinkCandidate]] {
        var result: [Int64: [LinkCandidate]] = [:]
        for candidate in try await candidates(
            where: "e.deleted_at IS NULL AND e.meeting_id = ANY($2) ORDER BY e.id", ownerID: ownerID, [meetingIDs])
        {
            result[candidate.meetingID, default: []].append(candidate)
        }
        return result
    }

    public func liveEvent(id: Int64, ownerID: Int64?) async throws -> LinkCandidate? {
        try await candidates(where: "e.deleted_at IS NULL AND e.id = $2", ownerID: ownerID, [id]).first
    }

    public func liveEvents(ids: [Int64], ownerID: Int64?) async throws -> [Int64: LinkCandidate] {
        var result: [Int64: LinkCandidate] = [:]
        for candidate in try await candidates(where: "e.deleted_at IS NULL AND e.id = ANY($2)", ownerID: ownerID, [ids]) {
            result[candidate.eventID] = candidate
        }
        return result
    }

    /// The stored links of the recordings, read by position.
    func existingLinks(_ recordingIDs: [Int64]) async throws -> [ExistingLink] {
        try await rows(
            """
            SELECT recording_id, state, method, is_manual, meeting_id, event_id, cached_title, cached_starts_at, cached_ends_at
            FROM links WHERE recording_id = ANY(\(recordingIDs))
            """
        ).map { row in
            let (recording, state, method, isManual, meeting, event, title, start, end) = try row.decode(
                (Int64, String, String?, Bool, Int64?, Int64?, String?, Int64?, Int64?).self)
            return ExistingLink(
                recordingID: recording, state: LinkState(rawValue: state) ?? .unlinked, method: method.flatMap(LinkMethod.init(rawValue:)),
                isManual: isManual, meetingID: meeting, eventID: event, cachedTitle: title,
                cachedStart: start.map(Self.date(milliseconds:)), cachedEnd: end.map(Self.date(milliseconds:)))
        }
    }

    public func link(recordingID: Int64) async throws -> ExistingLink? {
        try await existingLinks([recordingID]).first
    }

    public func links(recordingIDs: [Int64]) async throws -> [Int64: ExistingLink] {
        Dictionary(try await existingLinks(recordingIDs).map { ($0.recordingID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func unsettledRecordings(recordedWithin window: DateInterval?) async throws -> [Int64] {
        try await rows(
            .numbered(
                """
                SELECT r.id FROM recordings r LEFT JOIN links l ON l.recording_id = r.id
                WHERE r.status = 'ready' AND r.recorded_at IS NOT NULL
                  AND (l.recording_id IS NULL OR (NOT l.is_manual AND l.state IN ('pending', 'unlinked', 'ambiguous')))
                  AND ($1::bigint IS NULL OR (r.recorded_at < $2::bigint AND r.recorded_at + coalesce(r.duration, 0) * 1000 > $1::bigint))
                ORDER BY r.id
                """,
                [window.map { Self.milliseconds($0.start) }, window.map { Self.milliseconds($0.end) }])
        ).map { try $0.decode(Int64.self) }
    }

    public func linksTouchedByEvents(changedSince since: Date) async throws -> [Int64] {
        try await rows(
            """
            SELECT DISTINCT l.recording_id FROM links l
            JOIN events e ON e.meeting_id = l.meeting_id OR e.id = l.event_id
            WHERE e.updated_at >= \(Self.milliseconds(since)) AND l.state IN ('linked', 'orphaned')
            ORDER BY l.recording_id
            """
        ).map { try $0.decode(Int64.self) }
    }

    public func linkedRecordings() async throws -> [Int64] {
        try await rows("SELECT recording_id FROM links ORDER BY recording_id").map { try $0.decode(Int64.self) }
    }

    public func changedEventSpan(since: Date) async throws -> DateInterval? {
        guard let row = try await row("SELECT min(starts_at), max(ends_at) FROM events WHERE updated_at >= \(Self.milliseconds(since))"),
            case let (first?, last?) = try row.decode((Int64?, Int64?).self)
        else { return nil }
        return DateInterval(start: Self.date(milliseconds: first), end: Self.date(milliseconds: max(first, last)))
    }

    public func links(state: LinkState?, visibleTo userID: Int64?, afterRecordingID: Int64?, limit: Int) async throws -> [LinkSummary] {
        try await rows(
            .numbered(
                """
                SELECT l.recording_id, r.title, r.recorded_at, u.name::text, l.state, l.method, l.is_manual, l.score, l.meeting_id,
                    l.cached_title, l.cached_starts_at, l.cached_ends_at, l.candidates, l.validated_at
                FROM links l JOIN recordings r ON r.id = l.recording_id LEFT JOIN users u ON u.id = r.owner_id
                WHERE l.recording_id > $1 AND ($2::text IS NULL OR l.state = $2::text) AND ($3::bigint IS NULL OR r.owner_id = $3::bigint)
                ORDER BY l.recording_id LIMIT $4
                """,
                [afterRecordingID ?? 0, state?.rawValue, userID, Int64(max(0, limit))])
        ).map { row in
            let r = row.makeRandomAccess()
            return LinkSummary(
                recording: try r[0].decode(Int64.self), recordingTitle: try r[1].decode(String?.self),
                recordedAt: try r[2].decode(Int64?.self).map(Self.date(milliseconds:)), owner: try r[3].decode(String?.self),
                state: LinkState(rawValue: try r[4].decode(String.self)) ?? .unlinked,
                method: try r[5].decode(String?.self).flatMap(LinkMethod.init(rawValue:)), isManual: try r[6].decode(Bool.self),
                score: try r[7].decode(Double?.self), meeting: try r[8].decode(Int64?.self), meetingTitle: try r[9].decode(String?.self),
                meetingStart: try r[10].decode(Int64?.self).map(Self.date(milliseconds:)),
                meetingEnd: try r[11].decode(Int64?.self).map(Self.date(milliseconds:)), candidates: try r[12].decode(String?.self),
                validatedAt: try r[13].decode(Int64?.self).map(Self.date(milliseconds:)))
        }
    }

    public func linkHistory(recordingID: Int64) async throws -> [LinkHistoryEntry] {
        try await rows(
            """
            SELECT at, actor, action, from_state, to_state, from_meeting_id, to_meeting_id, method, score, reason
            FROM link_history WHERE recording_id = \(recordingID) ORDER BY at, id
            """
        ).map { row in
            let (at, actor, action, from, to, fromMeeting, toMeeting, method, score, reason) = try row.decode(
                (Int64, String, String, String?, String?, Int64?, Int64?, String?, Double?, String?).self)
            return LinkHistoryEntry(
                at: Self.date(milliseconds: at), actor: actor, action: action, fromState: from.flatMap(LinkState.init(rawValue:)),
                toState: to.flatMap(LinkState.init(rawValue:)), fromMeeting: fromMeeting, toMeeting: toMeeting,
                method: method.flatMap(LinkMethod.init(rawValue:)), score: score, reason: reason)
        }
    }

    public func linkAttendees(recordingID: Int64) async throws -> [Attendee] {
        try await rows(
            """
            SELECT email::text, name, role, response FROM link_attendees WHERE recording_id = \(recordingID)
            ORDER BY role = 'organizer' DESC, lower(email::text) COLLATE "C"
            """
        ).map(Self.decodedAttendee)
    }

    /// An attendee of a row (email, name, role, response).
    static func decodedAttendee(_ row: PostgresRow) throws -> Attendee {
        let (email, name, role, response) = try row.decode((String, String?, String, String).self)
        return storedAttendee(email: email, name: name, role: role, response: response)
    }
}
