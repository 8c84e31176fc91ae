extension CatalogSQL {
    /// Whether one of the events of the meeting whose id is `meeting` has an organizer or attendee whose lowercased
    /// address (or, with `names`, folded name or address) is `LIKE` the pattern bound at
    /// `pattern`. `fold` is the backend's SQL for `AttendeeMatch.folded`.
    package static func attendeeLike(_ pattern: String, names: Bool, fold: (String) -> String, meeting: String = "m.id") -> String {
        func like(_ email: String, _ name: String) -> String {
            let address = "lower(\(email)) LIKE \(pattern) ESCAPE '\\'"
            return names ? "(\(address) OR \(fold(name)) LIKE \(pattern) ESCAPE '\\')" : address
        }
        return """
            EXISTS (SELECT 1 FROM events e WHERE e.meeting_id = \(meeting)
                AND (\(like("e.organizer_email", "e.organizer_name"))
                     OR EXISTS (SELECT 1 FROM event_attendees ea WHERE ea.event_id = e.id AND \(like("ea.email", "ea.name")))))
            """
    }

    /// A `LIKE … ESCAPE '\\'` pattern matching text that contains `text`.
    package static func likePattern(containing text: String) -> String {
        "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}
