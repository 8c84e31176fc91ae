import Foundation
import Testing
import StenoCore

/// The bounds every provider's events are held to before they reach the mirror.
@Suite("Event field limits")
struct EventFieldLimitsTests {
    func event(title: String = "Planning", attendees: Int = 3, location: String? = nil) -> EventOccurrence {
        EventOccurrence(
            remoteID: "r", meetingIdentity: "m", title: title, start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 3600),
            organizer: Attendee(email: "org@example.com"), attendees: (0..<attendees).map { Attendee(email: "p\($0)@example.com") },
            location: location)
    }

    @Test func anEventWithinTheBoundsIsKeptAsItIs() {
        let (kept, cut) = event().bounded()
        #expect(cut.isEmpty && kept == event())
    }

    @Test func overLongTextIsCutAtACharacterWithAnEllipsis() {
        let limits = EventFieldLimits(textBytes: 10)
        // "é" is two bytes and "👩‍💻" eleven: the cut never splits a character.
        for title in [String(repeating: "é", count: 40), String(repeating: "👩‍💻", count: 5), String(repeating: "a", count: 11)] {
            let (bounded, cut) = event(title: title, location: title).bounded(by: limits)
            #expect(bounded.title.utf8.count <= 10 && bounded.title.hasSuffix("…"), "\(bounded.title)")
            #expect(title.hasPrefix(bounded.title.dropLast()))
            #expect(cut == ["title", "location"])
        }
        #expect(event(title: String(repeating: "a", count: 10)).bounded(by: limits).cut.isEmpty)
    }

    @Test func attendeesBeyondTheCountAndAddressesTooLongAreDropped() {
        let (bounded, cut) = event(attendees: 200_000).bounded()
        #expect(bounded.attendees.count == EventFieldLimits.standard.attendees && cut == ["attendees"])
        #expect(bounded.attendees.first?.email == "p0@example.com" && bounded.organizer?.email == "org@example.com")
        var long = event()
        long.attendees.append(Attendee(email: String(repeating: "x", count: 600) + "@example.com", name: String(repeating: "N", count: 900)))
        long.attendees.append(Attendee(email: "fine@example.com", name: String(repeating: "N", count: 900)))
        let (kept, cutPeople) = long.bounded()
        #expect(kept.attendees.count == 4 && cutPeople == ["attendees"])
        #expect((kept.attendees.last?.name?.utf8.count ?? 0) <= 512)
    }

    @Test func aChangeSetCountsTheEventsCutByField() {
        let changes = CalendarChangeSet(
            calendar: CalendarDescriptor(remoteID: "c", name: "C"), scope: .incremental,
            updatedResources: [
                ResourceUpdate(resource: "a", occurrences: [event(title: String(repeating: "t", count: 5000)), event()]),
                ResourceUpdate(resource: "b", occurrences: [event(attendees: 3000)]),
            ])
        let (bounded, cutFields) = changes.bounded()
        #expect(cutFields == ["title": 1, "attendees": 1])
        #expect(bounded.updatedResources[0].occurrences[1] == event())
        #expect(bounded.updatedResources[0].occurrences[0].title.utf8.count <= 2048)
    }
}
