import Foundation

/// One event a device pushed: a new or changed event of one of its calendars, or a deletion.
///
/// Writes are idempotent by the event's remote id within the device's account; a write older
/// than what the mirror holds (by the device's own modification time) is ignored as stale.
public struct DeviceEventWrite: Sendable, Hashable {
    /// The row's remote id: the device's event identifier, plus the original start of an
    /// occurrence of a recurring event (``DeviceEventKeys/remoteID(externalID:occurrenceDate:)``).
    public var remoteID: String
    /// The device's last modification of the event, in milliseconds since 1970, when it sent one.
    public var externalUpdatedAt: Int64?
    public var change: Change

    /// What the device says happened.
    public enum Change: Sendable, Hashable {
        /// The event as it is now, in `calendar`. `request` names the row Steno asked the
        /// device to create (a feed row without provider) that this event fulfils: the event
        /// joins that row's meeting and the request is closed.
        case upsert(calendar: CalendarDescriptor, occurrence: EventOccurrence, request: Int64?)
        /// The event is gone from the device. With `allOccurrences`, every occurrence of a
        /// recurring event (every row whose remote id starts with the identifier and `#`).
        case delete(allOccurrences: Bool)
    }

    public init(remoteID: String, externalUpdatedAt: Int64?, change: Change) {
        self.remoteID = remoteID
        self.externalUpdatedAt = externalUpdatedAt
        self.change = change
    }
}

/// What the mirror did with one ``DeviceEventWrite``.
public enum DeviceWriteOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// Stored: inserted, changed or deleted.
    case ok
    /// The mirror already held exactly this; nothing was written.
    case unchanged
    /// Older than the stored version; ignored.
    case stale
}

/// How device events are keyed in the mirror.
public enum DeviceEventKeys {
    /// The remote id of rows Steno asked a device to create and it has not yet: the feed
    /// shows them without a provider.
    public static let requestPrefix = "steno-request:"

    /// A meeting identity Steno made itself (an event created for a recording): kept by the
    /// device's copy of that event, whatever identifier the device later gives it.
    public static func isStenoIdentity(_ identity: String) -> Bool { identity.hasPrefix("steno-") }

    /// The row of an event: the device's identifier, plus `#` and the original start
    /// (`YYYYMMDDTHHMMSSZ`) for an occurrence of a recurring event, which shares the identifier.
    public static func remoteID(externalID: String, occurrenceDate: Date?) -> String {
        guard let occurrenceDate else { return externalID }
        return externalID + "#" + MeetingIdentity.basicUTC(occurrenceDate)
    }

    /// The meeting of a device event: its iCalendar UID when the device knows it (Exchange or
    /// CalDAV-backed calendars), so it is one meeting with the same event from those
    /// providers; otherwise one of its own.
    public static func meetingIdentity(accountID: Int64, remoteID: String, iCalUID: String?, occurrenceDate: Date?) -> String {
        if let iCalUID, !iCalUID.isEmpty { return MeetingIdentity.iCalendar(uid: iCalUID, recurrenceID: occurrenceDate) }
        return "device:\(accountID):\(remoteID)"
    }
}
