import Foundation
import StenoCalendar
import Testing

/// Steno's expansion equals recurring-ical-events' for every fixture in `Fixtures/recurrence`
/// (expected files made by `Fixtures/generate_expected.py`).
@Suite("Recurrence fixtures (vs recurring-ical-events)")
struct RecurrenceFixtureTests {
    @Test("there are a few dozen fixtures")
    func fixtureCount() {
        #expect(Fixtures.recurrenceNames.count >= 30)
    }

    @Test("expansion matches recurring-ical-events", arguments: Fixtures.recurrenceNames)
    func matchesReference(name: String) throws {
        let calendar = try ICalendar.parse(data: try Fixtures.ics(name))
        #expect(calendar.warnings.isEmpty, "\(calendar.warnings)")
        let windowText = try #require(calendar.extraProperties["X-STENO-TEST-WINDOW"])
        let bounds = windowText.split(separator: "/").compactMap { ExpectedOccurrence.parseBasicUTC(String($0)) }
        try #require(bounds.count == 2)
        let zone = try #require(TimeZone(identifier: calendar.extraProperties["X-STENO-TEST-TZ"] ?? "UTC"))
        let occurrences = calendar.occurrences(in: DateInterval(start: bounds[0], end: bounds[1]), defaultTimeZone: zone)
        let actual = occurrences.map(ExpectedOccurrence.init)
            .sorted { ($0.start, $0.uid, $0.recurrenceID ?? "") < ($1.start, $1.uid, $1.recurrenceID ?? "") }
        var expected = try Fixtures.expected(name)
        // Deliberate difference: for a start in a spring-forward gap Python reports an end before
        // the start; Steno keeps the event's length (see ICalendar+Expansion.swift).
        for (index, item) in expected.enumerated() where item.end < item.start {
            if let match = actual.first(where: { $0.start == item.start && $0.uid == item.uid }), match.end > match.start {
                expected[index].end = match.end
            }
        }
        #expect(actual.count == expected.count, "\(name): \(actual.count) occurrences, expected \(expected.count)")
        for (a, e) in zip(actual, expected) where a != e {
            Issue.record("\(name): got \(a)\n   expected \(e)")
        }
        for occurrence in occurrences {
            #expect(occurrence.end >= occurrence.start)
        }
    }
}
