import StenoCore

/// An events row (aliased `e`) stores its resource and series UID only where they differ from
/// its remote id and iCalUID (migration 0010: no second index entry per event); readers take
/// these expressions.
enum StoredEventKeys {
    /// The source object holding the event.
    static let resource = "coalesce(e.resource, e.remote_id)"
    /// The series' UID.
    static let seriesUID = "coalesce(e.series_uid, e.ical_uid)"

    /// What the resource and series UID columns hold for an occurrence.
    static func columns(_ occurrence: EventOccurrence, resource: String) -> (resource: String?, seriesUID: String?) {
        (resource == occurrence.remoteID ? nil : resource, occurrence.seriesUID == occurrence.iCalUID ? nil : occurrence.seriesUID)
    }
}
