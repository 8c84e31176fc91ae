import GRDB

/// The statements ``MirrorWriter`` runs for every row, each looked up once per change set.
///
/// GRDB's statement cache is keyed by SQL text: looking a statement up hashes the whole text,
/// and the event upsert is a kilobyte long. Run once per row of a 10,000-event sync, that
/// hashing was as costly as some of the writes.
final class MirrorStatements {
    /// The statements, by purpose.
    enum Kind: Int, CaseIterable {
        case upsertMeeting, meetingByIdentity, upsertEvent, eventByRemoteID, deleteAttendees, insertAttendee

        var sql: String {
            switch self {
            case .upsertMeeting:
                """
                INSERT INTO meetings (identity, title, starts_at, ends_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(identity) DO UPDATE SET title = excluded.title, starts_at = excluded.starts_at,
                    ends_at = excluded.ends_at, updated_at = excluded.updated_at
                """
            case .meetingByIdentity:
                "SELECT id FROM meetings WHERE identity = ?"
            case .upsertEvent:
                """
                INSERT INTO events (calendar_id, remote_id, ical_uid, series_uid, recurrence_id, meeting_id, title, starts_at, ends_at,
                    time_zone, is_all_day, all_day_start, all_day_end, status, organizer_email, organizer_name, location,
                    online_meeting_url, web_link, etag, deleted_at, updated_at, resource, fingerprint, organizer_response, change_seq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)
                ON CONFLICT(calendar_id, remote_id) DO UPDATE SET ical_uid = excluded.ical_uid, series_uid = excluded.series_uid,
                    recurrence_id = excluded.recurrence_id, meeting_id = excluded.meeting_id, title = excluded.title,
                    starts_at = excluded.starts_at, ends_at = excluded.ends_at, time_zone = excluded.time_zone,
                    is_all_day = excluded.is_all_day, all_day_start = excluded.all_day_start, all_day_end = excluded.all_day_end,
                    status = excluded.status, organizer_email = excluded.organizer_email, organizer_name = excluded.organizer_name,
                    location = excluded.location, online_meeting_url = excluded.online_meeting_url, web_link = excluded.web_link,
                    etag = excluded.etag, deleted_at = NULL, updated_at = excluded.updated_at, resource = excluded.resource,
                    fingerprint = excluded.fingerprint, organizer_response = excluded.organizer_response,
                    change_seq = excluded.change_seq
                """
            case .eventByRemoteID:
                "SELECT id FROM events WHERE calendar_id = ? AND remote_id = ?"
            case .deleteAttendees:
                "DELETE FROM event_attendees WHERE event_id = ?"
            case .insertAttendee:
                """
                INSERT INTO event_attendees (event_id, email, name, role, response) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(event_id, email) DO NOTHING
                """
            }
        }
    }

    private let db: Database
    private var prepared: [PreparedStatement?] = Array(repeating: nil, count: Kind.allCases.count)

    /// For one transaction on `db`.
    init(_ db: Database) {
        self.db = db
    }

    /// The statement of `kind`, ready for its parameters.
    func callAsFunction(_ kind: Kind) throws -> DirectStatement {
        if let statement = prepared[kind.rawValue] { return DirectStatement(statement) }
        let statement = try PreparedStatement(kind.sql, in: db)
        prepared[kind.rawValue] = statement
        return DirectStatement(statement)
    }
}
