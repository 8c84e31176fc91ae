/// Forgotten people kept out of the mirror: a sync that brings one back stores a redacted entry.
extension CalendarChangeSet {
    /// The change set with every organizer and attendee whose address `redacted` replaces
    /// written as that replacement, without a name.
    ///
    /// - Parameter redacted: the replacement of a lowercased address, or nil to keep it.
    public func redactingPeople(_ redacted: (String) -> String?) -> CalendarChangeSet {
        var changes = self
        for r in changes.updatedResources.indices {
            for o in changes.updatedResources[r].occurrences.indices {
                changes.updatedResources[r].occurrences[o].redactPeople(redacted)
            }
        }
        return changes
    }
}

extension EventOccurrence {
    fileprivate mutating func redactPeople(_ redacted: (String) -> String?) {
        if let organizer, let replacement = redacted(organizer.email) {
            self.organizer = Attendee(email: replacement, role: organizer.role, response: organizer.response)
        }
        guard attendees.contains(where: { redacted($0.email) != nil }) else { return }
        var seen = Set<String>()
        attendees = attendees.compactMap { attendee in
            guard let replacement = redacted(attendee.email) else { return seen.insert(attendee.email).inserted ? attendee : nil }
            return seen.insert(replacement).inserted ? Attendee(email: replacement, role: attendee.role, response: attendee.response) : nil
        }
    }
}
