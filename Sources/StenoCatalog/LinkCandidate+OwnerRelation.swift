import StenoCore

extension LinkCandidate.OwnerRelation {
    /// The relation of a candidate row: organiser before invitee (with the answer) before own
    /// calendar.
    ///
    /// An event that does not ``MeetingMembership/speaksForOwner(_:)`` is unrelated whatever it says.
    package init(own: Bool?, organizes: Bool?, response: String?, speaksForOwner: Bool?) {
        if speaksForOwner != true {
            self = .unrelated
        } else if organizes == true {
            self = .organizer
        } else if let response = response.flatMap(AttendeeResponse.init(rawValue:)) {
            self = .attendee(response)
        } else if own == true {
            self = .ownCalendar
        } else {
            self = .unrelated
        }
    }
}
