import StenoCore

/// An events row (aliased `e`) stores its resource and series UID only where they differ from
/// its remote id and iCalUID (migration 0010: no second index entry per event); readers take
/// these expressions.
///
/// Its iCalUID is indexed only where its meeting's identity cannot stand in for it (migration
/// 0011): a single event whose series UID is its iCalUID is the meeting of that identity, and
/// lookups reach it through `meetings.identity`, which holds the same long key.
package enum StoredEventKeys {
    /// The source object holding the event.
    package static let resource = "coalesce(e.resource, e.remote_id)"
    /// The series' UID.
    package static let seriesUID = "coalesce(e.series_uid, e.ical_uid)"
    /// The rows in `events_ical_uid`; a lookup by iCalUID repeats it, so SQLite can use the
    /// (partial) index.
    package static let iCalUIDIndexed = "(series_uid IS NOT NULL OR recurrence_id IS NOT NULL)"

    /// What the resource and series UID columns hold for an occurrence.
    ///
    /// A row without series UID or recurrence id is left out of the iCalUID index, so one
    /// whose meeting identity is not its iCalUID stores its series UID even when it repeats
    /// the iCalUID (no source maps an event that way today; the rule does not rely on it).
    package static func columns(_ occurrence: EventOccurrence, resource: String) -> (resource: String?, seriesUID: String?) {
        let foundThroughMeeting = occurrence.recurrenceID != nil || occurrence.iCalUID == nil
            || occurrence.meetingIdentity == occurrence.iCalUID
        let seriesUID = occurrence.seriesUID == occurrence.iCalUID && foundThroughMeeting ? nil : occurrence.seriesUID ?? occurrence.iCalUID
        return (resource == occurrence.remoteID ? nil : resource, seriesUID)
    }
}
