import Foundation
import StenoCore

extension ICalOccurrence {
    /// This occurrence as a row of the local mirror.
    ///
    /// - Parameter resource: where the series came from (a CalDAV href, an ICS file); the
    ///   occurrence's remote id is the resource plus its RECURRENCE-ID.
    public func mirrored(resource: String) -> EventOccurrence {
        let occurrenceKey = recurrenceID.map { "\(resource)#\(MeetingIdentity.basicUTC($0))" }
        var attendeeList: [Attendee] = []
        var seen = Set<String>()
        // The organizer often lists themself as an attendee too: one entry, their answer kept.
        let organizerEntry = organizer.flatMap { organizer -> Attendee? in
            guard !organizer.email.isEmpty else { return nil }
            var entry = organizer.mirrored(isOrganizer: true)
            if let asAttendee = attendees.first(where: { $0.email.lowercased() == entry.email }),
                asAttendee.partstat != .needsAction
            {
                entry.response = asAttendee.mirrored(isOrganizer: false).response
            }
            return entry
        }
        if let organizerEntry {
            attendeeList.append(organizerEntry)
            seen.insert(organizerEntry.email)
        }
        for attendee in attendees where !attendee.email.isEmpty && seen.insert(attendee.email.lowercased()).inserted {
            attendeeList.append(attendee.mirrored(isOrganizer: false))
        }
        return EventOccurrence(
            remoteID: occurrenceKey ?? resource,
            iCalUID: uid.isEmpty ? nil : uid,
            seriesUID: uid.isEmpty ? nil : uid,
            recurrenceID: recurrenceID,
            meetingIdentity: uid.isEmpty ? "\(resource)#no-uid" : MeetingIdentity.iCalendar(uid: uid, recurrenceID: recurrenceID),
            title: summary ?? "",
            start: start,
            end: end,
            timeZone: timeZoneID,
            isAllDay: isAllDay,
            allDayStart: allDayStart?.description,
            allDayEnd: allDayEnd?.description,
            status: status.map(EventStatus.init) ?? .confirmed,
            organizer: organizerEntry,
            attendees: attendeeList,
            location: location,
            onlineMeetingURL: onlineMeetingURL?.absoluteString,
            webLink: url?.absoluteString)
    }
}

extension EventStatus {
    /// The mirror's status for an iCalendar `STATUS`.
    init(_ status: ICalEvent.Status) {
        switch status {
        case .cancelled: self = .cancelled
        case .tentative: self = .tentative
        default: self = .confirmed
        }
    }
}

extension ICalAttendee {
    /// The mirror's attendee: `ROLE`/`CUTYPE` → role, `PARTSTAT` → response.
    func mirrored(isOrganizer: Bool) -> Attendee {
        let mirroredRole: AttendeeRole
        if isOrganizer || role == .chair {
            mirroredRole = .organizer
        } else if cutype == .resource || cutype == .room {
            mirroredRole = .resource
        } else if role == .optionalParticipant || role == .nonParticipant {
            mirroredRole = .optional
        } else {
            mirroredRole = .required
        }
        let response: AttendeeResponse
        switch partstat {
        case .accepted: response = .accepted
        case .declined: response = .declined
        case .tentative: response = .tentative
        case .needsAction, .delegated: response = isOrganizer ? .accepted : .none
        }
        return Attendee(email: email, name: name, role: mirroredRole, response: response)
    }
}
