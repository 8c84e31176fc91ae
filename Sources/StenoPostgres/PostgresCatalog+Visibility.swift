import StenoCatalog

/// What a member may see, as sets read through indexes, for listings and searches: the same
/// meetings and recordings as the per-row conditions `CatalogSQL.meetingVisible(to:)` and
/// `recordingVisible(to:)` (which single lookups by id still use), but computed once per query.
/// Tested row by row, a member's first page of a filter matching few of their meetings walked
/// every meeting in start order, each through three joins (over a second at 100,000 meetings).
extension PostgresCatalog {
    /// The ids of the meetings `viewer` (a placeholder, not NULL) may see: those with an event
    /// in their calendars, organised by or inviting one of their emails (deleted events
    /// included), and those linked to their own recordings. SQLite's set, its parts joined
    /// with `UNION`: PostgreSQL drops the repeats with a hash, and told of none (`UNION ALL`)
    /// the planner expected twice the meetings and chose slower plans for members' pages.
    static func visibleMeetingIDs(of viewer: String) -> String {
        distinctParts(CatalogSQL.visibleMeetingIDs(of: viewer))
    }

    /// `sql`'s parts joined with `UNION` where SQLite's sets join them with `UNION ALL`.
    static func distinctParts(_ sql: String) -> String {
        sql.replacingOccurrences(of: "UNION ALL SELECT", with: "UNION SELECT")
    }

    /// The ids of the recordings `viewer` (a placeholder, not NULL) may see: their own, and
    /// those linked to a meeting with an event that concerns them.
    static func visibleRecordingIDs(of viewer: String) -> String {
        """
        SELECT r.id FROM recordings r WHERE r.owner_id = \(viewer)
        UNION SELECT l.recording_id FROM links l
        WHERE l.meeting_id IN (\(distinctParts(CatalogSQL.concernedMeetingIDs(of: viewer)))) AND l.state IN ('linked', 'orphaned')
        """
    }

    /// The condition keeping `column`'s rows in `set` for a member, or nothing for an admin (a
    /// NULL viewer), with the viewer bound either way. Built apart for each, so a member's set
    /// becomes a join the planner can start from: `viewer IS NULL OR … IN (set)` would stay a
    /// filter tested on every row.
    static func visibility(_ column: String, in set: (String) -> String, viewer: Int64?, values: inout NumberedValues) -> String {
        let placeholder = values.bind(viewer, as: "bigint")
        guard viewer != nil else { return "\(placeholder) IS NULL" }
        return "\(column) IN (\(set(placeholder)))"
    }
}
