import Foundation
import StenoCore

extension ICalOccurrence {
    /// This occurrence as a row of the local mirror.
    ///
    /// - Parameter resource: where the series came from (a CalDAV href, an ICS file); the
    ///   occurrence's remote id is the resource plus its RECURRENCE-ID.
    public func mirrored(resource: String) -> EventOccurrence {
        let occurrenceKey = recurrenceID.map { "\(resource)#\(MeetingIdentity.basicUTC($0))" }
        let organizerEntry = organizer.flatMap { $0.email.isEmpty ? nil : $0.mirrored(isOrganizer: true) }
        let attendeeList = Attendee.mirroredList(
            organizer: organizerEntry, attendees: attendees.filter { !$0.email.isEmpty }.map { $0.mirrored(isOrganizer: false) })
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
            organizer: organizerEntry == nil ? nil : attendeeList.first,
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

extension Attendee {
    /// The attendee list of a mirrored event: the organizer first, then every other address
    /// once. The organizer often lists themself as an attendee too: one entry, with their own
    /// answer when they gave one.
    public static func mirroredList(organizer: Attendee?, attendees: [Attendee]) -> [Attendee] {
        var list: [Attendee] = []
        list.reserveCapacity(attendees.count + 1)
        if var organizer {
            if let asAttendee = attendees.first(where: { $0.email == organizer.email }), asAttendee.response != .none {
                organizer.response = asAttendee.response
            }
            list.append(organizer)
        }
        // Most meetings have a handful of attendees: comparing with the list so far is
        // cheaper than hashing every address; a large list uses a set.
        if attendees.count <= 16 {
            for attendee in attendees where !list.contains(where: { $0.email == attendee.email }) {
                list.append(attendee)
            }
            return list
        }
        var seen = Set(list.map(\.email))
        for attendee in attendees where seen.insert(attendee.email).inserted {
            list.append(attendee)
        }
        return list
    }
}
