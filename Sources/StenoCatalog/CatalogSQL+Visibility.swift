/// Who may see what, as SQL, so every store query enforces it itself:
/// a member sees the recordings they own, the meetings they organised or attended (or hold in
/// their own calendars), and the recordings linked to those meetings; an admin sees everything.
///
/// Each function takes the SQL expression that yields the user's id (a named parameter such
/// as `:v` on SQLite, a typed one such as `$1::bigint` on PostgreSQL, or a column); a NULL
/// user id stands for an admin. Both catalogs render these same fragments.
///
/// The sets are only ever read through `IN (…)`, which drops repeats itself: their parts are
/// joined with `UNION ALL`, not `UNION` (which sorted every id once more into a b-tree of its own:
/// 20,000 ids per page of `meetings --with`).
extension CatalogSQL {
    /// Whether event `e` of the account `a` concerns user `user`: their own calendar, or
    /// organised by or inviting one of their emails.
    package static func eventConcerns(_ user: String) -> String {
        """
        (a.owner_id = \(user)
         OR e.organizer_email IN (SELECT email FROM user_emails WHERE user_id = \(user))
         OR EXISTS (SELECT 1 FROM event_attendees ea JOIN user_emails ue ON ue.email = ea.email
                    WHERE ea.event_id = e.id AND ue.user_id = \(user)))
        """
    }

    /// Whether `user` may see meeting `m`: an event of it concerns them, or one of their own
    /// recordings is linked to it.
    package static func meetingVisible(to user: String) -> String {
        """
        (\(user) IS NULL
         OR EXISTS (SELECT 1 FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
                    WHERE e.meeting_id = m.id AND \(eventConcerns(user)))
         OR EXISTS (SELECT 1 FROM links l JOIN recordings r ON r.id = l.recording_id WHERE l.meeting_id = m.id AND r.owner_id = \(user)))
        """
    }

    /// The ids of the meetings with an event that concerns `user` (see ``eventConcerns(_:)``),
    /// as one set read through indexes: events by calendar, and the meetings naming one of the
    /// user's emails (organizer or attendee) from `meeting_people`, one range per email rather
    /// than every event and attendee row of each address.
    package static func concernedMeetingIDs(of user: String) -> String {
        """
        SELECT e.meeting_id FROM calendar_accounts a JOIN calendars c ON c.account_id = a.id JOIN events e ON e.calendar_id = c.id
        WHERE a.owner_id = \(user)
        UNION ALL SELECT p.meeting_id FROM user_emails ue JOIN meeting_people p ON p.email = ue.email WHERE ue.user_id = \(user)
        """
    }

    /// The ids of the meetings `user` (not NULL) may see, as one set read through indexes: the
    /// same meetings as ``meetingVisible(to:)``, for listings that would otherwise test every
    /// meeting in start order until a page is full.
    package static func visibleMeetingIDs(of user: String) -> String {
        """
        \(concernedMeetingIDs(of: user))
        UNION ALL SELECT l.meeting_id FROM recordings r JOIN links l ON l.recording_id = r.id WHERE r.owner_id = \(user)
        """
    }

    /// The ids of the recordings `user` (not NULL) may see, as one set read through indexes:
    /// the same recordings as ``recordingVisible(to:)``.
    package static func visibleRecordingIDs(of user: String) -> String {
        """
        SELECT r.id FROM recordings r WHERE r.owner_id = \(user)
        UNION ALL SELECT l.recording_id FROM links l
        WHERE l.meeting_id IN (\(concernedMeetingIDs(of: user))) AND +l.state IN ('linked', 'orphaned')
        """
    }

    /// The ids of the meetings with an event organised by or inviting `email` (deleted events
    /// included, as for visibility): one range of `meeting_people`, which the catalog keeps.
    package static func meetingIDs(withEmail email: String) -> String {
        "SELECT p.meeting_id FROM meeting_people p WHERE p.email = \(email)"
    }

    /// Whether `user` may see recording `r`: they own it, or it is linked to a meeting one of
    /// whose events concerns them (the meeting's recordings come with the meeting).
    package static func recordingVisible(to user: String) -> String {
        """
        (\(user) IS NULL OR r.owner_id = \(user)
         OR EXISTS (SELECT 1 FROM links l JOIN events e ON e.meeting_id = l.meeting_id
                      JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
                    WHERE l.recording_id = r.id AND l.state IN ('linked', 'orphaned') AND \(eventConcerns(user))))
        """
    }
}
