import Foundation
import StenoCore

/// Where a writer puts the values of an events row: a prepared statement's parameters on
/// SQLite, a JSON row for a set-based statement on PostgreSQL.
package protocol EventColumnSink {
    mutating func add(_ text: String?)
    mutating func add(_ integer: Int64?)
    mutating func add(_ flag: Bool)
}

/// The values both backends store for a mirrored occurrence, in one order, so the two
/// writers cannot drift apart.
package enum MirroredEventColumns {
    /// The columns ``add(_:meetingID:etag:resource:to:)`` fills, in order.
    package static let names = """
        remote_id, ical_uid, series_uid, recurrence_id, meeting_id, title, starts_at, ends_at, time_zone, is_all_day, all_day_start,
        all_day_end, status, organizer_email, organizer_name, location, online_meeting_url, web_link, etag
        """

    /// The `ON CONFLICT (calendar_id, remote_id) DO UPDATE SET` list of an events upsert that
    /// also writes `updated_at, resource, fingerprint, organizer_response, change_seq`: every
    /// value replaced, the row revived.
    package static let upsertAssignments = (
        names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { $0 != "remote_id" }
            + ["updated_at", "resource", "fingerprint", "organizer_response", "change_seq"]
    ).map { "\($0) = excluded.\($0)" }.joined(separator: ", ") + ", deleted_at = NULL"

    /// Adds the values of ``names`` for `occurrence` (from its resource `resource`) to `sink`.
    package static func add(
        _ occurrence: EventOccurrence, meetingID: Int64?, etag: String?, resource: String, to sink: inout some EventColumnSink
    ) {
        let stored = StoredEventKeys.columns(occurrence, resource: resource)
        sink.add(occurrence.remoteID)
        sink.add(occurrence.iCalUID)
        sink.add(stored.seriesUID)
        sink.add(occurrence.recurrenceID.map(CatalogTime.milliseconds))
        sink.add(meetingID)
        sink.add(occurrence.title)
        sink.add(CatalogTime.milliseconds(occurrence.start))
        sink.add(CatalogTime.milliseconds(occurrence.end))
        sink.add(occurrence.timeZone)
        sink.add(occurrence.isAllDay)
        sink.add(occurrence.allDayStart)
        sink.add(occurrence.allDayEnd)
        sink.add(occurrence.status.rawValue)
        sink.add(occurrence.organizer?.email)
        sink.add(occurrence.organizer?.name)
        sink.add(occurrence.location)
        sink.add(occurrence.onlineMeetingURL)
        sink.add(occurrence.webLink)
        sink.add(etag)
    }

    /// What a change set does with an occurrence whose fingerprint is `fingerprint`, given the
    /// row the mirror holds for its remote id (if any).
    package static func outcome(fingerprint: Int64, previous: (fingerprint: Int64?, isDeleted: Bool)?) -> MirrorOutcome {
        guard let previous, !previous.isDeleted else { return .inserted }
        return previous.fingerprint == fingerprint ? .unchanged : .updated
    }

    /// The organizer's own answer: their entry among the attendees when the source listed
    /// them there (it is not stored as an attendee row), else the organizer's.
    package static func organizerResponse(_ occurrence: EventOccurrence) -> String? {
        occurrence.organizer.map { organizer in
            (occurrence.attendees.first { $0.email == organizer.email } ?? organizer).response.rawValue
        }
    }
}

/// What a change set does with one reported occurrence.
package enum MirrorOutcome {
    /// Same fingerprint as the live row: nothing is written.
    case unchanged
    /// No row, or a tombstone revived.
    case inserted
    /// A live row with other values.
    case updated
}
