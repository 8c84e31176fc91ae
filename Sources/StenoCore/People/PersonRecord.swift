import Foundation

/// What the catalog holds about one email address (`people.show`, the right of access): the
/// names it was seen with, the meetings and recordings that name it, and the recordings of the
/// user whose address it is.
public struct PersonRecord: Sendable, Hashable, Codable {
    /// The address, lowercased.
    public var email: String
    /// The display names organizers and attendees with this address carried, sorted.
    public var names: [String]
    /// The Steno user whose address it is.
    public var user: String?
    /// Whether it was forgotten before: a sync then stores it redacted.
    public var forgotten: Bool
    /// Mirrored events that name it, as organizer or attendee.
    public var events: Int
    /// The meetings those events are, newest first.
    public var meetings: [PersonMeeting]
    /// Recordings whose cached attendees name it, ascending.
    public var linkedRecordings: [Int64]
    /// Recordings ``user`` owns, ascending.
    public var ownedRecordings: [Int64]

    public init(
        email: String, names: [String], user: String?, forgotten: Bool, events: Int, meetings: [PersonMeeting],
        linkedRecordings: [Int64], ownedRecordings: [Int64]
    ) {
        self.email = email
        self.names = names
        self.user = user
        self.forgotten = forgotten
        self.events = events
        self.meetings = meetings
        self.linkedRecordings = linkedRecordings
        self.ownedRecordings = ownedRecordings
    }

    /// Whether the catalog holds anything about the address.
    public var isEmpty: Bool {
        names.isEmpty && user == nil && events == 0 && meetings.isEmpty && linkedRecordings.isEmpty && ownedRecordings.isEmpty
    }
}

/// A meeting that names a person.
public struct PersonMeeting: Sendable, Hashable, Codable {
    public var id: Int64
    public var title: String
    public var startsAt: Date?

    public init(id: Int64, title: String, startsAt: Date?) {
        self.id = id
        self.title = title
        self.startsAt = startsAt
    }
}
