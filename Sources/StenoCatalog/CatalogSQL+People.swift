extension CatalogSQL {
    /// The statements of `people.show` and `people.forget`, each over the placeholder of the
    /// lowercased address (`email`), and for the erasure of its redacted form (`redacted`).
    package struct People {
        let email: String

        package init(email: String) { self.email = email }

        /// The display names the address carried, sorted. Column: name.
        package var names: String {
            """
            SELECT name FROM (
                SELECT organizer_name AS name FROM events WHERE organizer_email = \(email)
                UNION SELECT name FROM event_attendees WHERE email = \(email)
                UNION SELECT name FROM link_attendees WHERE email = \(email)) named
            WHERE name IS NOT NULL AND name <> '' ORDER BY name
            """
        }

        /// How many mirrored events name the address. Column: count.
        package var eventCount: String {
            """
            SELECT count(*) FROM (
                SELECT id FROM events WHERE organizer_email = \(email)
                UNION SELECT event_id FROM event_attendees WHERE email = \(email)) named
            """
        }

        /// The meetings whose people hold the address, newest first (undated last). Columns:
        /// id, title, start.
        package var meetings: String {
            """
            SELECT m.id, m.title, m.starts_at FROM meeting_people p JOIN meetings m ON m.id = p.meeting_id
            WHERE p.email = \(email)
            ORDER BY CASE WHEN m.starts_at IS NULL THEN 1 ELSE 0 END, m.starts_at DESC, m.id DESC
            """
        }

        /// The recordings whose attendee cache names the address, ascending. Column: id.
        package var linkedRecordings: String {
            "SELECT recording_id FROM link_attendees WHERE email = \(email) ORDER BY recording_id"
        }

        /// The user whose address it is. Columns: id, name.
        package var user: String {
            "SELECT u.id, CAST(u.name AS TEXT) FROM user_emails ue JOIN users u ON u.id = ue.user_id WHERE ue.email = \(email)"
        }

        /// The erasure, in order: the organizer entries, the attendee entries (a redacted entry
        /// already on the same event or recording stays the only one), the meetings' people and
        /// the user's address. The meetings' search entries are rebuilt after. Each statement
        /// says whether it binds `redacted`.
        package func erasure(redacted: String) -> [(sql: String, bindsRedacted: Bool)] {
            [
                "UPDATE events SET organizer_email = \(redacted), organizer_name = NULL WHERE organizer_email = \(email)",
                """
                DELETE FROM event_attendees WHERE email = \(redacted)
                    AND event_id IN (SELECT event_id FROM event_attendees WHERE email = \(email))
                """,
                "UPDATE event_attendees SET email = \(redacted), name = NULL WHERE email = \(email)",
                """
                DELETE FROM link_attendees WHERE email = \(redacted)
                    AND recording_id IN (SELECT recording_id FROM link_attendees WHERE email = \(email))
                """,
                "UPDATE link_attendees SET email = \(redacted), name = NULL WHERE email = \(email)",
                "DELETE FROM meeting_people WHERE email = \(email)",
                "DELETE FROM user_emails WHERE email = \(email)",
            ].map { ($0, $0.contains(redacted)) }
        }
    }

    /// Whether a key is forgotten. Column: 1.
    package static func isForgotten(key: String) -> String { "SELECT 1 FROM forgotten_people WHERE key = \(key)" }

    /// Keeps a forgotten person's key (once).
    package static func rememberForgotten(key: String, at: String) -> String {
        "INSERT INTO forgotten_people (key, forgotten_at) VALUES (\(key), \(at)) ON CONFLICT (key) DO NOTHING"
    }

    /// Every forgotten key. Column: key.
    package static let forgottenKeys = "SELECT key FROM forgotten_people"
}
