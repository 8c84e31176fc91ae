import GRDB
import StenoCatalog

/// The statements ``MirrorWriter`` runs for every row, each looked up once per change set.
///
/// GRDB's statement cache is keyed by SQL text: looking a statement up hashes the whole text,
/// and the event upsert is a kilobyte long. Run once per row of a 10,000-event sync, that
/// hashing was as costly as some of the writes.
final class MirrorStatements {
    /// The statements, by purpose.
    enum Kind: Int, CaseIterable {
        case insertMeeting, meetingByIdentity, meetingMembership, upsertEvent, eventByRemoteID, deleteAttendees, insertAttendee

        var sql: String {
            switch self {
            case .insertMeeting:
                // Its title and times are set from its chosen copy once the events are written.
                "INSERT INTO meetings (identity, title, starts_at, ends_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
            case .meetingByIdentity:
                "SELECT id FROM meetings WHERE identity = ?"
            case .meetingMembership:
                "SELECT \(MeetingMembership.factsColumns(meeting: "?1", owner: "?2", named: "(SELECT value FROM json_each(?3))"))"
            case .upsertEvent:
                """
                INSERT INTO events (calendar_id, \(MirroredEventColumns.names), deleted_at, updated_at, resource, fingerprint,
                    organizer_response, change_seq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)
                ON CONFLICT(calendar_id, remote_id) DO UPDATE SET \(MirroredEventColumns.upsertAssignments)
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
