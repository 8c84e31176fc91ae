import Foundation
import StenoCore

/// What one mailbox's calendar remembers between syncs (the calendar's `syncState`): the
/// delta link of the last complete round and the window that round was started with.
///
/// A calendarView delta link keeps the start and end it began with; once the configured
/// window is no longer inside them (it slides forward every day), the round starts over.
public struct GraphCalendarState: Codable, Sendable, Hashable {
    /// `@odata.deltaLink` of the last complete round.
    public var deltaLink: String?
    /// The round's `startDateTime` and `endDateTime` (seconds since 1970).
    public var windowStart: Double
    public var windowEnd: Double

    public init(deltaLink: String?, window: DateInterval) {
        self.deltaLink = deltaLink
        self.windowStart = window.start.timeIntervalSince1970
        self.windowEnd = window.end.timeIntervalSince1970
    }

    /// The round's window.
    public var window: DateInterval {
        DateInterval(start: Date(timeIntervalSince1970: windowStart), end: Date(timeIntervalSince1970: max(windowStart, windowEnd)))
    }

    /// Whether the round's window still holds `window`.
    public func covers(_ window: DateInterval) -> Bool {
        windowStart <= window.start.timeIntervalSince1970 && windowEnd >= window.end.timeIntervalSince1970
    }
}

/// What a Graph account remembers (the account's `syncState`): the mailbox it signed in as.
struct GraphAccountState: Codable, Sendable, Hashable {
    var userPrincipalName: String?
}

/// The text of a UTC instant as Graph's query parameters take it: `2026-11-20T17:00:00Z`.
func graphUTCText(_ date: Date) -> String {
    LocalDateTime(utc: date).description + "Z"
}
