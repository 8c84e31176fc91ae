import Foundation
import StenoCore

/// Reads events straight from their source: for revalidating links to events outside the
/// mirrored window, which syncs no longer look at. Everything inside the window
/// is answered from the mirror and costs no request.
public protocol CalendarEventLookup: Sendable {
    /// The events `keys` of one account as the source holds them now, read with one client
    /// (the access token is renewed at most once).
    ///
    /// - Returns: what was learned of each event; an event missing from the result could not
    ///   be read (the caller then knows nothing of it and changes nothing).
    /// - Throws: ``CalendarSyncError`` when the account as a whole cannot be read (credentials
    ///   refused, throttled for longer than a lookup waits).
    func lookUpEvents(_ keys: [CalendarEventKey], context: CalendarAccountContext) async throws -> [CalendarEventKey: CalendarEventLookupResult]
}

/// Names one event at its source: the calendar's remote id and the resource holding it.
public struct CalendarEventKey: Sendable, Hashable {
    public var calendarRemoteID: String
    /// The Graph event id, or a CalDAV href path.
    public var resource: String

    public init(calendarRemoteID: String, resource: String) {
        self.calendarRemoteID = calendarRemoteID
        self.resource = resource
    }
}

/// What a lookup found.
public enum CalendarEventLookupResult: Sendable, Hashable {
    /// The event exists; `etag` is its change key or ETag.
    case found(EventOccurrence, etag: String?)
    /// The source says the event does not exist (HTTP 404 or 410).
    case gone
}
