import Foundation
import Logging
import StenoCore

/// Writes events back to an account's calendars: create an event for a recording that has
/// none, rename a meeting.
///
/// Writes never overwrite a change the writer has not seen: a provider sends a precondition
/// with every write (CalDAV: `If-None-Match: *` to create, `If-Match` with a strong ETag to
/// change) and, when the event changed in between, reads it again and retries once before
/// reporting ``CalendarWriteError/conflict(_:)``. The mirror learns of the write at the next
/// sync, like of any other change.
public protocol CalendarEventWriter: Sendable {
    /// Creates `event` in the calendar `calendarRemoteID` of `context.account`.
    ///
    /// - Throws: ``CalendarWriteError``, or ``CalendarSyncError`` for credentials, rate limits
    ///   and unreachable servers.
    func create(_ event: NewCalendarEvent, calendarRemoteID: String, context: CalendarAccountContext) async throws -> CalendarEventRef

    /// Gives the event `event` (every occurrence of a series) the title `title`.
    ///
    /// - Throws: ``CalendarWriteError``, or ``CalendarSyncError`` as ``create(_:calendarRemoteID:context:)``.
    func rename(_ event: CalendarEventRef, title: String, context: CalendarAccountContext) async throws -> CalendarEventRef
}

/// What one request on an account's behalf (a write, a lookup) may use: the account with its
/// opened secret.
public struct CalendarAccountContext: Sendable {
    /// The account as stored (settings, provider state).
    public var account: CalendarAccount
    /// The opened secret, when the account has one.
    public var credentials: CalendarCredentials?
    /// Stores credentials that changed during the request (a refreshed OAuth token).
    public var saveCredentials: @Sendable (CalendarCredentials) async throws -> Void
    public var logger: Logger

    public init(
        account: CalendarAccount, credentials: CalendarCredentials?,
        saveCredentials: @escaping @Sendable (CalendarCredentials) async throws -> Void = { _ in }, logger: Logger
    ) {
        self.account = account
        self.credentials = credentials
        self.saveCredentials = saveCredentials
        self.logger = logger
    }
}

/// An event to create.
public struct NewCalendarEvent: Sendable, Hashable {
    /// The iCalendar UID; nil lets the writer make one.
    public var uid: String?
    public var title: String
    public var start: Date
    public var end: Date
    public var location: String?
    public var description: String?

    public init(uid: String? = nil, title: String, start: Date, end: Date, location: String? = nil, description: String? = nil) {
        self.uid = uid
        self.title = title
        self.start = start
        self.end = end
        self.location = location
        self.description = description
    }
}

/// Where a written event lives at the source.
public struct CalendarEventRef: Sendable, Hashable {
    /// The calendar's remote id (as in the mirror).
    public var calendarRemoteID: String
    /// The resource holding the event (as in the mirror: a CalDAV href path).
    public var resource: String
    /// The iCalendar UID.
    public var uid: String?
    /// The ETag after the write, when the server sent one (weak ones are kept for comparison
    /// only, never sent as a precondition).
    public var etag: String?
    /// The event as the source holds it after the write, when the write tells: mirrored at
    /// once, so what the write was for (a link) does not wait for the next sync.
    public var occurrence: EventOccurrence?

    public init(calendarRemoteID: String, resource: String, uid: String? = nil, etag: String? = nil, occurrence: EventOccurrence? = nil) {
        self.calendarRemoteID = calendarRemoteID
        self.resource = resource
        self.uid = uid
        self.etag = etag
        self.occurrence = occurrence
    }
}

/// Write failures with a meaning to the caller.
public enum CalendarWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The event changed (or appeared) at the source again while it was being written.
    case conflict(String)
    /// The event is not at the source (deleted since the last sync).
    case notFound(String)
    /// The source cannot guard this write against lost updates (no strong ETag).
    case unsafe(String)
    /// The source refuses writes with these credentials (signed in to read only).
    case notPermitted(String)

    public var description: String {
        switch self {
        case .conflict(let message), .notFound(let message), .unsafe(let message), .notPermitted(let message): return message
        }
    }
}
