import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// ``MeetingEventFold`` gives the same latest event, counts and attendee order whatever the
/// order its rows come in (the catalogs read them unsorted).
@Suite("Meeting events folded from unsorted rows")
struct MeetingEventFoldTests {
    static func row(event: Int64, updated: Int64, live: Bool = true, cancelled: Bool = false, organizer: String?, attendee: String?) -> MeetingEventFold.Row {
        MeetingEventFold.Row(
            meetingID: 1, eventID: event, updatedAt: updated, isLive: live, isActive: live && !cancelled, organizerEmail: organizer,
            organizerName: organizer.map { "Organizer \($0)" }, organizerResponse: nil, location: "room \(event)", onlineMeetingURL: nil,
            isAllDay: false, allDayStart: nil, allDayEnd: nil, attendee: attendee.map { Attendee(email: $0, name: "From event \(event)") })
    }

    /// Three events of one meeting: a deleted one updated last, a cancelled live one, and the
    /// live one updated most recently among the live (each with attendees; Bob in two).
    static let rows: [[MeetingEventFold.Row]] = [
        [row(event: 10, updated: 900, live: false, organizer: "gone@example.com", attendee: nil)],
        [
            row(event: 11, updated: 500, cancelled: true, organizer: "Ann@Example.com", attendee: "bob@example.com"),
            row(event: 11, updated: 500, cancelled: true, organizer: "Ann@Example.com", attendee: "carol@example.com"),
        ],
        [
            row(event: 12, updated: 700, organizer: "dave@example.com", attendee: "bob@example.com"),
            row(event: 12, updated: 700, organizer: "dave@example.com", attendee: "erin@example.com"),
        ],
    ]

    @Test(arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    func theOrderOfTheRowsChangesNothing(order: [Int]) {
        var fold = MeetingEventFold()
        for index in order { for row in Self.rows[index] { fold.add(row) } }
        #expect(fold.latest(of: 1)?.eventID == 12)
        #expect(fold.counts(of: 1) == (live: 2, active: 1))
        let attendees = fold.liveAttendees(of: 1) ?? []
        #expect(attendees.map(\.email) == ["dave@example.com", "bob@example.com", "erin@example.com", "ann@example.com", "bob@example.com", "carol@example.com"])
        #expect(attendees.first?.role == .organizer)
        #expect(attendees.first { $0.email == "bob@example.com" }?.name == "From event 12")
        let summary = fold.summary(id: 1, title: "Standup", start: nil, end: nil, recordings: [], attendees: MeetingAttendees.distinct(attendees))
        #expect(summary.organizer?.email == "dave@example.com")
        #expect(summary.attendeeCount == 5)
        #expect(summary.location == "room 12")
        #expect(!summary.isCancelled && !summary.isGone)
    }

    @Test func aMeetingWithOnlyDeletedEventsIsGoneWithoutLiveAttendees() {
        var fold = MeetingEventFold()
        fold.add(Self.row(event: 10, updated: 900, live: false, organizer: "gone@example.com", attendee: nil))
        #expect(fold.liveAttendees(of: 1) == nil)
        #expect(fold.latest(of: 1)?.eventID == 10)
        let summary = fold.summary(id: 1, title: "Standup", start: nil, end: nil, recordings: [], attendees: [])
        #expect(summary.isGone && summary.organizer?.email == "gone@example.com")
    }
}
