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
    /// Creates an event covering a recording in its owner's Microsoft 365 or CalDAV calendar
    /// and links the recording to it (the recording's owner, or an admin).
    public static let meetingsCreate = RPCMethodDescriptor<MeetingCreateParams, MeetingWriteResult>("meetings.create")
    /// Renames a meeting at its calendar's provider; for an occurrence of a recurring series,
    /// the series (the owner of a calendar holding it, or an admin).
    public static let meetingsRename = RPCMethodDescriptor<MeetingRenameParams, MeetingWriteResult>("meetings.rename")
}

/// Params of `meetings.create`.
public struct MeetingCreateParams: Codable, Sendable, Hashable {
    /// The recording the meeting is for; it must be ready and not linked.
    public var recording: Int64
    /// The meeting's title; default: the recording's title, else its file name.
    public var title: String?
    /// The calendar to create it in (an id from `calendars.list`); needed when the owner has
    /// more than one calendar Steno can write to.
    public var calendar: Int64?

    public init(recording: Int64, title: String? = nil, calendar: Int64? = nil) {
        self.recording = recording
        self.title = title
        self.calendar = calendar
    }
}

/// Params of `meetings.rename`.
public struct MeetingRenameParams: Codable, Sendable, Hashable {
    /// The meeting.
    public var id: Int64
    /// Its new title.
    public var title: String

    public init(id: Int64, title: String) {
        self.id = id
        self.title = title
    }
}

/// What a write to a calendar did.
public struct MeetingWriteResult: Codable, Sendable, Hashable {
    /// The meeting as the catalog holds it after the write (nil until a sync mirrors it).
    public var meeting: MeetingSummary?
    /// The account and calendar written to.
    public var account: Int64
    public var calendar: String
    public var provider: CalendarProviderKind
    /// The recording linked to the created meeting.
    public var recording: Int64?
    /// A sync queued to mirror the rest of the change (a series' other occurrences).
    public var syncJob: Int64?

    public init(
        meeting: MeetingSummary?, account: Int64, calendar: String, provider: CalendarProviderKind, recording: Int64? = nil,
        syncJob: Int64? = nil
    ) {
        self.meeting = meeting
        self.account = account
        self.calendar = calendar
        self.provider = provider
        self.recording = recording
        self.syncJob = syncJob
    }
}

/// Params of `meetings.list`.
public struct MeetingListParams: Codable, Sendable, Hashable {
    /// Starting at or after / before.
    public var from: Date?
    public var to: Date?
    /// Only meetings with this attendee or organizer (email).
    public var with: String?
    /// Only meetings with any of these among their organizer and attendees: an email, a domain
    /// (`@corp.example` or `corp.example`), or part of a name (words from their start,
    /// case-insensitive); at most 20.
    public var withAny: [String]?
    /// Only meetings whose title contains this.
    public var title: String?
    /// true: only recorded meetings; false: only unrecorded ones.
    public var recorded: Bool?
    /// true: leave out meetings no calendar holds any more (deleted at the source), except
    /// those with a recording linked. Default false: listed, flagged `isGone`.
    public var hideGone: Bool?
    /// true: the latest start first. Default false: the earliest first.
    public var newestFirst: Bool?
    public var cursor: String?
    public var limit: Int?

    public init(
        from: Date? = nil, to: Date? = nil, with: String? = nil, title: String? = nil, recorded: Bool? = nil, hideGone: Bool? = nil,
        newestFirst: Bool? = nil, cursor: String? = nil, limit: Int? = nil, withAny: [String]? = nil
    ) {
        self.withAny = withAny
        self.hideGone = hideGone
        self.newestFirst = newestFirst
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
