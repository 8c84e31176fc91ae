import Foundation
import StenoCore

extension StenoMethods {
    // MARK: meetings.*, attendees.*, search.*

    /// Meetings the caller may see (organised, invited, own calendars, linked to own
    /// recordings; admins: all), by start, a page at a time.
    public static let meetingsList = RPCMethodDescriptor<MeetingListParams, Page<MeetingSummary>>("meetings.list")
    /// One meeting: time, organizer, attendees with responses, recordings with link method and score.
    public static let meetingsGet = RPCMethodDescriptor<MeetingIDParams, MeetingDetail>("meetings.get")
    /// A meeting's attendees (from the calendars, or the links' cache when it is gone).
    public static let attendeesList = RPCMethodDescriptor<AttendeeListParams, Page<Attendee>>("attendees.list")
    /// Full-text search over meeting titles, attendee names and emails, recording titles and transcripts.
    public static let searchQuery = RPCMethodDescriptor<SearchParams, Page<SearchHit>>("search.query")
}

/// Params of `meetings.list`.
public struct MeetingListParams: Codable, Sendable, Hashable {
    /// Starting at or after / before.
    public var from: Date?
    public var to: Date?
    /// Only meetings with this attendee or organizer.
    public var with: String?
    /// Only meetings whose title contains this.
    public var title: String?
    /// true: only recorded meetings; false: only unrecorded ones.
    public var recorded: Bool?
    public var cursor: String?
    public var limit: Int?

    public init(
        from: Date? = nil, to: Date? = nil, with: String? = nil, title: String? = nil, recorded: Bool? = nil, cursor: String? = nil,
        limit: Int? = nil
    ) {
        self.from = from
        self.to = to
        self.with = with
        self.title = title
        self.recorded = recorded
        self.cursor = cursor
        self.limit = limit
    }
}

/// Names one meeting.
public struct MeetingIDParams: Codable, Sendable, Hashable {
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

/// Params of `attendees.list`: one meeting, a page at a time.
public struct AttendeeListParams: Codable, Sendable, Hashable {
    /// The meeting.
    public var id: Int64
    /// The `nextCursor` of the previous page.
    public var cursor: String?
    /// Items per page (default 100).
    public var limit: Int?

    public init(id: Int64, cursor: String? = nil, limit: Int? = nil) {
        self.id = id
        self.cursor = cursor
        self.limit = limit
    }
}

/// Params of `search.query`.
public struct SearchParams: Codable, Sendable, Hashable {
    /// Words; each matches as a prefix, all must match.
    public var text: String
    /// The `nextCursor` of the previous page.
    public var cursor: String?
    /// Hits per page (default 100).
    public var limit: Int?

    public init(text: String, cursor: String? = nil, limit: Int? = nil) {
        self.text = text
        self.cursor = cursor
        self.limit = limit
    }
}
