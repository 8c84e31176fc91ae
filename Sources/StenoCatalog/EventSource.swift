import Foundation
import StenoCore

/// Where a mirrored event lives at its source: what a write or a lookup needs to reach it.
public struct EventSource: Sendable, Hashable {
    public var eventID: Int64
    public var meetingID: Int64?
    public var accountID: Int64
    /// The owner of the account holding the event.
    public var ownerID: Int64
    public var provider: CalendarProviderKind
    public var calendarRemoteID: String
    public var calendarName: String
    /// The resource the event came in: a Graph event id, a CalDAV href path, an ICS file and UID.
    public var resource: String
    public var iCalUID: String?
    public var title: String
    public var start: Date
    public var etag: String?
    /// Whether the account's owner organises the event (one of their emails is its organizer's).
    public var ownerOrganizes: Bool
    /// Whether the source deleted it (the row is a tombstone).
    public var isDeleted: Bool

    public init(
        eventID: Int64, meetingID: Int64?, accountID: Int64, ownerID: Int64, provider: CalendarProviderKind, calendarRemoteID: String,
        calendarName: String, resource: String, iCalUID: String?, title: String, start: Date, etag: String?, ownerOrganizes: Bool,
        isDeleted: Bool
    ) {
        self.eventID = eventID
        self.meetingID = meetingID
        self.accountID = accountID
        self.ownerID = ownerID
        self.provider = provider
        self.calendarRemoteID = calendarRemoteID
        self.calendarName = calendarName
        self.resource = resource
        self.iCalUID = iCalUID
        self.title = title
        self.start = start
        self.etag = etag
        self.ownerOrganizes = ownerOrganizes
        self.isDeleted = isDeleted
    }
}
