import Foundation

/// The most of each free-text field, and of attendees, that the mirror keeps of one event.
///
/// Calendars are written by anyone who can send an invitation: a title of megabytes or an
/// event with 200,000 attendees would otherwise sit in the catalog, in search results and in
/// every listing, and hold memory on each sync. Real events stay far inside these bounds
/// (Exchange caps a meeting at 500 attendees by default), so cutting loses nothing a person
/// reads; what is cut is named in a warning.
public struct EventFieldLimits: Sendable, Hashable {
    /// Title and location, in UTF-8 bytes.
    public var textBytes: Int
    /// The online-meeting URL and the event's web link, in bytes.
    public var urlBytes: Int
    /// Attendees kept per event (the organizer, then the rest in the calendar's order).
    public var attendees: Int
    /// An attendee's email address or name, in bytes.
    public var attendeeTextBytes: Int

    public init(textBytes: Int = 2_048, urlBytes: Int = 4_096, attendees: Int = 2_000, attendeeTextBytes: Int = 512) {
        self.textBytes = textBytes
        self.urlBytes = urlBytes
        self.attendees = attendees
        self.attendeeTextBytes = attendeeTextBytes
    }

    /// The bounds every provider's events are held to.
    public static let standard = EventFieldLimits()

    /// `text` cut to at most `maxBytes` UTF-8 bytes at a character boundary, with "…" when cut.
    public static func cut(_ text: String, maxBytes: Int) -> String {
        guard text.utf8.count > maxBytes else { return text }
        let ellipsis = "…"
        let budget = max(0, maxBytes - ellipsis.utf8.count)
        var end = text.startIndex
        var used = 0
        for index in text.indices {
            let next = text.index(after: index)
            let size = text.utf8.distance(from: index, to: next)
            guard used + size <= budget else { break }
            used += size
            end = next
        }
        return String(text[..<end]) + ellipsis
    }
}

extension EventOccurrence {
    /// This occurrence within `limits`, and the names of the fields that were cut (empty
    /// when it was within them already).
    public func bounded(by limits: EventFieldLimits = .standard) -> (occurrence: EventOccurrence, cut: [String]) {
        // Every event of every sync passes here: the common case only reads lengths.
        guard !isWithin(limits) else { return (self, []) }
        var bounded = self
        var cut: [String] = []
        func bound(_ value: String?, _ maxBytes: Int, _ name: String) -> String? {
            guard let value, value.utf8.count > maxBytes else { return value }
            cut.append(name)
            return EventFieldLimits.cut(value, maxBytes: maxBytes)
        }
        bounded.title = bound(title, limits.textBytes, "title") ?? ""
        bounded.location = bound(location, limits.textBytes, "location")
        bounded.onlineMeetingURL = bound(onlineMeetingURL, limits.urlBytes, "onlineMeetingURL")
        bounded.webLink = bound(webLink, limits.urlBytes, "webLink")
        if attendees.count > limits.attendees {
            cut.append("attendees")
            bounded.attendees = Array(attendees.prefix(limits.attendees))
        }
        func boundPerson(_ person: Attendee) -> Attendee? {
            // An address too long to be one matches nobody: dropped rather than cut.
            guard person.email.utf8.count <= limits.attendeeTextBytes else { return nil }
            var person = person
            if let name = person.name, name.utf8.count > limits.attendeeTextBytes {
                person.name = EventFieldLimits.cut(name, maxBytes: limits.attendeeTextBytes)
            }
            return person
        }
        let people = bounded.attendees.compactMap(boundPerson)
        let organizer = organizer.flatMap(boundPerson)
        if people != bounded.attendees || organizer != self.organizer, !cut.contains("attendees") { cut.append("attendees") }
        bounded.attendees = people
        bounded.organizer = organizer
        return (bounded, cut)
    }

    private func isWithin(_ limits: EventFieldLimits) -> Bool {
        func fits(_ person: Attendee) -> Bool {
            person.email.utf8.count <= limits.attendeeTextBytes && (person.name?.utf8.count ?? 0) <= limits.attendeeTextBytes
        }
        return title.utf8.count <= limits.textBytes && (location?.utf8.count ?? 0) <= limits.textBytes
            && (onlineMeetingURL?.utf8.count ?? 0) <= limits.urlBytes && (webLink?.utf8.count ?? 0) <= limits.urlBytes
            && attendees.count <= limits.attendees && attendees.allSatisfy(fits) && organizer.map(fits) ?? true
    }
}

extension CalendarChangeSet {
    /// This change set with every occurrence within `limits`, and how many occurrences were
    /// cut, by field name.
    public func bounded(by limits: EventFieldLimits = .standard) -> (changes: CalendarChangeSet, cutFields: [String: Int]) {
        var changes = self
        var cutFields: [String: Int] = [:]
        for resource in changes.updatedResources.indices {
            for index in changes.updatedResources[resource].occurrences.indices {
                let (occurrence, cut) = changes.updatedResources[resource].occurrences[index].bounded(by: limits)
                guard !cut.isEmpty else { continue }
                changes.updatedResources[resource].occurrences[index] = occurrence
                for field in cut { cutFields[field, default: 0] += 1 }
            }
        }
        return (changes, cutFields)
    }
}
