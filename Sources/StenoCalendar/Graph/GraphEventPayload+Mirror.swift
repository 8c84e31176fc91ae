import Foundation
import StenoCore

extension GraphEventPayload {
    /// This event as a row of the local mirror (one Graph event of a calendarView is one
    /// occurrence, its own resource).
    ///
    /// Identity: `iCalUId` is the occurrence's (Graph gives each occurrence its own); the
    /// meeting identity is the series `uid` plus the original start for occurrences and
    /// exceptions, as for iCalendar sources, so the same meeting mirrored from CalDAV or from
    /// another person's mailbox is one meeting.
    ///
    /// - Throws: ``GraphMappingError`` when the start or end is missing or unreadable.
    func mirrored() throws(GraphMappingError) -> EventOccurrence {
        guard let start, let end else { throw .missing(id: id, field: start == nil ? "start" : "end") }
        guard let startLocal = GraphDateTime.local(start.dateTime), let endLocal = GraphDateTime.local(end.dateTime) else {
            throw .unreadable(id: id, value: "\(start.dateTime) – \(end.dateTime)")
        }
        let originalZone = GraphDateTime.ianaName(originalStartTimeZone)
        let allDay = isAllDay ?? false
        let startInstant: Date
        let endInstant: Date
        if allDay {
            // All-day dates are floating: the days as written, placed at midnight in the zone
            // the organizer wrote them in (UTC when unknown).
            let rules = originalZone.flatMap(TimeZoneRules.iana) ?? .utc
            startInstant = rules.instant(for: startLocal.startOfDay)
            endInstant = rules.instant(for: endLocal.startOfDay)
        } else {
            guard let startRules = GraphDateTime.rules(start.timeZone ?? "UTC"), let endRules = GraphDateTime.rules(end.timeZone ?? "UTC") else {
                throw .unreadable(id: id, value: "time zone \(start.timeZone ?? "") / \(end.timeZone ?? "")")
            }
            startInstant = startRules.instant(for: startLocal)
            endInstant = endRules.instant(for: endLocal)
        }
        let isRecurring = type == "occurrence" || type == "exception"
        let recurrenceID = isRecurring ? (originalStart.flatMap(GraphDateTime.instant) ?? startInstant) : nil
        let seriesUID = nonEmpty(uid) ?? nonEmpty(iCalUId)
        let organizerEntry = organizer?.emailAddress.flatMap { address -> Attendee? in
            guard let email = nonEmpty(address.address) else { return nil }
            return Attendee(email: email, name: nonEmpty(address.name), role: .organizer, response: .accepted)
        }
        let invited: [Attendee] = (attendees ?? []).compactMap { attendee in
            guard let email = nonEmpty(attendee.emailAddress?.address) else { return nil }
            return Attendee(
                email: email, name: nonEmpty(attendee.emailAddress?.name), role: Self.role(attendee.type),
                response: Self.response(attendee.status?.response))
        }
        let attendeeList = Attendee.mirroredList(organizer: organizerEntry, attendees: invited)
        return EventOccurrence(
            remoteID: id,
            iCalUID: nonEmpty(iCalUId) ?? seriesUID,
            seriesUID: seriesUID,
            recurrenceID: recurrenceID,
            meetingIdentity: MeetingIdentity.iCalendar(uid: seriesUID ?? "graph:\(id)", recurrenceID: recurrenceID),
            title: subject ?? "",
            start: startInstant,
            end: max(endInstant, startInstant),
            timeZone: allDay ? nil : originalZone,
            isAllDay: allDay,
            allDayStart: allDay ? Self.day(startLocal) : nil,
            allDayEnd: allDay ? Self.day(endLocal) : nil,
            status: isCancelled == true ? .cancelled : .confirmed,
            organizer: organizerEntry == nil ? nil : attendeeList.first,
            attendees: attendeeList,
            location: nonEmpty(location?.displayName),
            onlineMeetingURL: nonEmpty(onlineMeeting?.joinUrl) ?? nonEmpty(onlineMeetingUrl),
            webLink: nonEmpty(webLink))
    }

    /// `attendee.type` → role.
    static func role(_ type: String?) -> AttendeeRole {
        guard let type else { return .required }
        if type.equalsIgnoringASCIICase("optional") { return .optional }
        if type.equalsIgnoringASCIICase("resource") { return .resource }
        return .required
    }

    /// `status.response` → response (`organizer` answered by organising).
    static func response(_ response: String?) -> AttendeeResponse {
        guard let response else { return .none }
        if response.equalsIgnoringASCIICase("accepted") || response.equalsIgnoringASCIICase("organizer") { return .accepted }
        if response.equalsIgnoringASCIICase("declined") { return .declined }
        if response.equalsIgnoringASCIICase("tentativelyAccepted") { return .tentative }
        return .none
    }

    static func day(_ local: LocalDateTime) -> String {
        String(local.description.prefix(10))
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

/// Why a Graph event could not be mirrored (it is skipped with a warning).
enum GraphMappingError: Error, Sendable, Hashable, CustomStringConvertible {
    case missing(id: String, field: String)
    case unreadable(id: String, value: String)

    var description: String {
        switch self {
        case .missing(let id, let field): return "event \(id) has no \(field)"
        case .unreadable(let id, let value): return "event \(id) has an unreadable \(value)"
        }
    }
}
