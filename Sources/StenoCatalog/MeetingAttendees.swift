import StenoCore

/// How a meeting's people are assembled from its events' rows, the same on both backends.
package enum MeetingAttendees {
    /// The organizer of an events row: not one of its attendee rows (migration 0012), first
    /// in its attendee list; their answer is `accepted` unless one was recorded.
    package static func organizer(email: String?, name: String?, response: String?) -> Attendee? {
        email.map { Attendee(email: $0, name: name, role: .organizer, response: response.flatMap(AttendeeResponse.init(rawValue:)) ?? .accepted) }
    }

    /// A meeting's organizer: their entry among the attendees, else one made from the event's
    /// organizer columns.
    package static func organizer(email: String?, name: String?, response: String?, attendees: [Attendee]) -> Attendee? {
        // The organizer made from the columns has the lowercased address attendees are keyed by
        // (lowercasing only what needs it: a listing builds thousands).
        guard let fromEvent = organizer(email: email, name: name, response: response) else { return nil }
        return attendees.first { $0.email == fromEvent.email } ?? fromEvent
    }

    /// One attendee per email (the first given), organizers first, then by email.
    package static func distinct(_ attendees: [Attendee]) -> [Attendee] {
        var seen = Set<String>()
        let unique = attendees.filter { seen.insert($0.email).inserted }
        return unique.sorted { ($0.role == .organizer ? 0 : 1, $0.email) < ($1.role == .organizer ? 0 : 1, $1.email) }
    }
}
