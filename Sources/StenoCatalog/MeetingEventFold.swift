import Foundation
import StenoCore

/// What a page of meeting summaries takes from the meetings' events, folded from one pass over
/// their event rows (each live event's rows carrying its attendees) in any order: the latest
/// event, how many are live and active, and the live attendees in the order summaries and
/// `attendees` read them. Both catalogs read the rows unsorted and fold them here: sorting
/// every event and attendee row of a 20,000-meeting listing in SQL cost more than reading them.
package struct MeetingEventFold {
    /// One event row's columns (the attendee columns nil for an event without attendees, and
    /// for a deleted one: its attendees do not count).
    package struct Row {
        package var meetingID: Int64
        package var eventID: Int64
        package var updatedAt: Int64
        package var isLive: Bool
        package var isActive: Bool
        package var organizerEmail: String?
        package var organizerName: String?
        package var organizerResponse: String?
        package var location: String?
        package var onlineMeetingURL: String?
        package var isAllDay: Bool
        package var allDayStart: String?
        package var allDayEnd: String?
        package var attendee: Attendee?

        package init(
            meetingID: Int64, eventID: Int64, updatedAt: Int64, isLive: Bool, isActive: Bool, organizerEmail: String?,
            organizerName: String?, organizerResponse: String?, location: String?, onlineMeetingURL: String?, isAllDay: Bool,
            allDayStart: String?, allDayEnd: String?, attendee: Attendee?
        ) {
            self.meetingID = meetingID
            self.eventID = eventID
            self.updatedAt = updatedAt
            self.isLive = isLive
            self.isActive = isActive
            self.organizerEmail = organizerEmail
            self.organizerName = organizerName
            self.organizerResponse = organizerResponse
            self.location = location
            self.onlineMeetingURL = onlineMeetingURL
            self.isAllDay = isAllDay
            self.allDayStart = allDayStart
            self.allDayEnd = allDayEnd
            self.attendee = attendee
        }
    }

    /// One event of a meeting with its attendee rows.
    package struct Event {
        package var row: Row
        package var attendees: [Attendee]

        /// Live events first, then the most recently updated, then the highest id.
        func isLater(than other: Event) -> Bool {
            (row.isLive ? 1 : 0, row.updatedAt, row.eventID) > (other.row.isLive ? 1 : 0, other.row.updatedAt, other.row.eventID)
        }
    }

    /// The events of each meeting, in the order their rows came.
    private(set) var events: [Int64: [Event]] = [:]

    package init() {}

    /// Adds one row: a new event, or another attendee of the event of the previous row.
    package mutating func add(_ row: Row) {
        // Changed in place in the dictionary: one hash lookup per row, no copy of the array.
        Self.add(row, to: &events[row.meetingID, default: []])
    }

    private static func add(_ row: Row, to meetingEvents: inout [Event]) {
        if let last = meetingEvents.indices.last, meetingEvents[last].row.eventID == row.eventID {
            if let attendee = row.attendee { meetingEvents[last].attendees.append(attendee) }
        } else if let index = meetingEvents.firstIndex(where: { $0.row.eventID == row.eventID }) {
            if let attendee = row.attendee { meetingEvents[index].attendees.append(attendee) }
        } else {
            meetingEvents.append(Event(row: row, attendees: row.attendee.map { [$0] } ?? []))
        }
    }

    /// A meeting's latest event: live first, then by update time, then by id.
    package func latest(of meeting: Int64) -> Row? {
        guard let meetingEvents = events[meeting], var latest = meetingEvents.first else { return nil }
        for event in meetingEvents.dropFirst() where event.isLater(than: latest) { latest = event }
        return latest.row
    }

    /// How many of a meeting's events are live, and how many of those are not cancelled.
    package func counts(of meeting: Int64) -> (live: Int, active: Int) {
        var counts = (live: 0, active: 0)
        for event in events[meeting] ?? [] {
            if event.row.isLive { counts.live += 1 }
            if event.row.isActive { counts.active += 1 }
        }
        return counts
    }

    /// The attendee rows of a meeting's live events, the latest event first, each event's
    /// organizer before its attendees; nil when it has none (the links' cache answers then).
    package func liveAttendees(of meeting: Int64) -> [Attendee]? {
        let live = (events[meeting] ?? []).filter { $0.row.isLive }
            .sorted { ($0.row.updatedAt, $0.row.eventID) > ($1.row.updatedAt, $1.row.eventID) }
        var attendees: [Attendee] = []
        for event in live {
            if let organizer = MeetingAttendees.organizer(
                email: event.row.organizerEmail, name: event.row.organizerName, response: event.row.organizerResponse)
            {
                attendees.append(organizer)
            }
            attendees.append(contentsOf: event.attendees)
        }
        return attendees.isEmpty ? nil : attendees
    }

    /// A meeting's summary from its row and the fold; `attendees` are its distinct attendees.
    package func summary(
        id: Int64, title: String, start: Date?, end: Date?, recordings: [Int64], attendees: [Attendee]
    ) -> MeetingSummary {
        let event = latest(of: id)
        let counts = counts(of: id)
        return MeetingSummary(
            id: id, title: title, start: start, end: end,
            organizer: MeetingAttendees.organizer(
                email: event?.organizerEmail, name: event?.organizerName, response: event?.organizerResponse, attendees: attendees),
            attendeeCount: attendees.count, recordings: recordings, location: event?.location,
            onlineMeetingURL: event?.onlineMeetingURL, isCancelled: counts.live > 0 && counts.active == 0, isGone: counts.live == 0,
            isAllDay: event?.isAllDay ?? false, firstDay: event?.allDayStart,
            lastDay: AllDayEnd.lastDay(before: event?.allDayEnd, first: event?.allDayStart))
    }
}
