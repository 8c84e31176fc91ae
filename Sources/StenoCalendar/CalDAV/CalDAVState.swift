import Foundation
import StenoCore
import StenoJSON

/// What a CalDAV account remembers between syncs (the account's `syncState`): where its
/// calendars live, so later syncs skip discovery.
public struct CalDAVAccountState: Codable, Sendable, Hashable {
    /// The principal URL found by discovery.
    public var principalURL: String?
    /// The calendar home collection the calendars are listed from.
    public var homeURL: String

    public init(principalURL: String?, homeURL: String) {
        self.principalURL = principalURL
        self.homeURL = homeURL
    }
}

/// What the server can do, probed once per account (the account's `capabilities`).
public struct CalDAVCapabilities: Codable, Sendable, Hashable {
    /// REPORT sync-collection (RFC 6578) is supported on the calendars.
    public var syncCollection: Bool
    /// REPORT calendar-multiget (RFC 4791 §7.9) is supported.
    public var calendarMultiget: Bool
    /// REPORT calendar-query is supported (time-range queries).
    public var calendarQuery: Bool
    /// `calendar-auto-schedule` (RFC 6638) was announced in the DAV header.
    public var scheduling: Bool
    /// The DAV header's compliance classes as the server announced them.
    public var davClasses: [String]
    /// calendar-query answers with `<C:expand>` (RFC 4791 §9.6.5): recurring objects come back
    /// as their instances within the range asked. Nil until the first history fetch probes it.
    public var expand: Bool?

    public init(
        syncCollection: Bool, calendarMultiget: Bool, calendarQuery: Bool, scheduling: Bool, davClasses: [String], expand: Bool? = nil
    ) {
        self.syncCollection = syncCollection
        self.calendarMultiget = calendarMultiget
        self.calendarQuery = calendarQuery
        self.scheduling = scheduling
        self.davClasses = davClasses
        self.expand = expand
    }
}

/// What one calendar remembers between syncs (the calendar's `syncState`).
public struct CalDAVCalendarState: Codable, Sendable, Hashable {
    /// The RFC 6578 sync token the mirror is complete up to.
    public var syncToken: String?
    /// The collection's CTag when the mirror was last brought up to date.
    public var ctag: String?
    /// The UTC day (`YYYYMMDD`) the window started on when objects were last expanded: once
    /// the window slides far enough, series are expanded again.
    public var windowDay: String?
    /// The UTC day the window ended on at that expansion: when the window slides, only the
    /// objects of the part it gained are listed and expanded again (nil in older states: the
    /// window is taken to have kept its length).
    public var windowEndDay: String?

    public init(syncToken: String? = nil, ctag: String? = nil, windowDay: String? = nil, windowEndDay: String? = nil) {
        self.syncToken = syncToken
        self.ctag = ctag
        self.windowDay = windowDay
        self.windowEndDay = windowEndDay
    }

    /// The window of the last expansion, widened to whole days outwards (nil when unknown):
    /// the parts of a new window outside it are what must be listed again.
    func expandedWindow(length: TimeInterval) -> DateInterval? {
        guard let start = windowDay.flatMap(CalDAVStateCoding.date(ofDay:)) else { return nil }
        // The stored days are the days the window started and ended on: the end day's last
        // instant is the latest the window can have reached, the start day's first the earliest.
        let end = windowEndDay.flatMap(CalDAVStateCoding.date(ofDay:)).map { $0.addingTimeInterval(86_400) }
            ?? start.addingTimeInterval(length)
        guard end > start else { return nil }
        return DateInterval(start: start, end: end)
    }
}

/// JSON for the states: sorted keys, so equal states are equal strings.
enum CalDAVStateCoding {
    static func encode<Value: Encodable>(_ value: Value) -> String {
        (try? JSONValueEncoder().encode(value))?.serializedString ?? "{}"
    }

    /// The decoded value, or nil when absent or unreadable (then it is probed or synced anew).
    static func decode<Value: Decodable>(_ type: Value.Type, from text: String?) -> Value? {
        guard let text, !text.isEmpty else { return nil }
        return try? JSONValueDecoder().decode(type, from: JSONValue.parse(text))
    }

    /// The UTC day of an instant, `YYYYMMDD`.
    static func day(of date: Date) -> String {
        String(MeetingIdentity.basicUTC(date).prefix(8))
    }

    /// Whole days between two `YYYYMMDD` days (nil when either is unreadable).
    static func days(from start: String, to end: String) -> Int? {
        guard let from = date(ofDay: start), let to = date(ofDay: end) else { return nil }
        return Int((to.timeIntervalSince(from) / 86_400).rounded())
    }

    /// The first instant (UTC) of a `YYYYMMDD` day; nil when unreadable.
    static func date(ofDay day: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd"
        return formatter.date(from: day)
    }
}
