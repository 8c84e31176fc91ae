import Foundation

/// A meeting as `steno meetings` lists it: one real-world meeting, however many calendars
/// hold it, with the recordings linked to it.
public struct MeetingSummary: Sendable, Hashable, Codable {
    public var id: Int64
    public var title: String
    public var start: Date?
    public var end: Date?
    public var organizer: Attendee?
    public var attendeeCount: Int
    /// Ids of the recordings linked to it.
    public var recordings: [Int64]
    public var location: String?
    public var onlineMeetingURL: String?
    public var isCancelled: Bool
    /// Whether no calendar holds it any more (it lives on in its links' caches).
    public var isGone: Bool
    /// Whether it takes whole days rather than a time (a holiday, a conference): shown as dates.
    public var isAllDay: Bool
    /// For an all-day meeting: its first and last day (ISO `YYYY-MM-DD`, the last included), as
    /// its calendar wrote them, whatever zone the reader is in.
    public var firstDay: String?
    public var lastDay: String?

    public init(
        id: Int64, title: String, start: Date?, end: Date?, organizer: Attendee?, attendeeCount: Int, recordings: [Int64],
        location: String?, onlineMeetingURL: String?, isCancelled: Bool, isGone: Bool, isAllDay: Bool = false, firstDay: String? = nil,
        lastDay: String? = nil
    ) {
        self.isAllDay = isAllDay
        self.firstDay = firstDay
        self.lastDay = lastDay
        self.id = id
        self.title = title
        self.start = start
        self.end = end
        self.organizer = organizer
        self.attendeeCount = attendeeCount
        self.recordings = recordings
        self.location = location
        self.onlineMeetingURL = onlineMeetingURL
        self.isCancelled = isCancelled
        self.isGone = isGone
    }
}

/// A meeting with its attendees and recordings: `steno meetings show`.
public struct MeetingDetail: Sendable, Hashable, Codable {
    public var meeting: MeetingSummary
    /// From the calendars when the meeting is there, else from its links' cache.
    public var attendees: [Attendee]
    public var recordings: [MeetingRecording]

    public init(meeting: MeetingSummary, attendees: [Attendee], recordings: [MeetingRecording]) {
        self.meeting = meeting
        self.attendees = attendees
        self.recordings = recordings
    }
}

/// A recording linked to a meeting, with how it was linked.
public struct MeetingRecording: Sendable, Hashable, Codable {
    public var id: Int64
    public var title: String?
    public var recordedAt: Date?
    public var duration: Double?
    public var owner: String?
    public var state: LinkState
    public var method: LinkMethod?
    public var score: Double?

    public init(
        id: Int64, title: String?, recordedAt: Date?, duration: Double?, owner: String?, state: LinkState, method: LinkMethod?, score: Double?
    ) {
        self.id = id
        self.title = title
        self.recordedAt = recordedAt
        self.duration = duration
        self.owner = owner
        self.state = state
        self.method = method
        self.score = score
    }
}

/// Filters of a meetings list.
public struct MeetingQuery: Sendable, Hashable {
    /// Starting at or after / before.
    public var from: Date?
    public var to: Date?
    /// Only meetings this address organised or was invited to.
    public var withEmail: String?
    /// Only meetings with any of these among their organizer and attendees (with `withEmail`,
    /// if given, as one more).
    public var withAny: [AttendeeMatch]
    /// Only meetings whose title contains this text (case-insensitive).
    public var titleContains: String?
    /// true: only meetings with a recording; false: only those without.
    public var recorded: Bool?
    /// Only what this user may see; nil for an admin.
    public var visibleTo: Int64?
    /// Leave out meetings no calendar holds any more, unless a recording is linked to them.
    public var hideGone: Bool
    /// The latest start first (then the highest id), instead of the earliest.
    public var newestFirst: Bool
    /// Position in the ordered list (by start, then id).
    public var offset: Int
    /// Continue after this meeting of the ordered list (a page's last), instead of counting
    /// `offset` rows from the start: a page then reads only its own rows.
    public var after: MeetingPosition?
    public var limit: Int

    public init(
        from: Date? = nil, to: Date? = nil, withEmail: String? = nil, titleContains: String? = nil, recorded: Bool? = nil,
        visibleTo: Int64? = nil, hideGone: Bool = false, newestFirst: Bool = false, offset: Int = 0, after: MeetingPosition? = nil,
        limit: Int = 100, withAny: [AttendeeMatch] = []
    ) {
        // One whole address among the matches is the same question as `withEmail`, which the
        // catalogs answer by walking that address's meetings in start order (`steno meetings
        // --with ADDRESS` sends it as a match).
        if withEmail == nil, withAny.count == 1, case .email(let email) = withAny[0] {
            self.withAny = []
            self.withEmail = email
        } else {
            self.withAny = withAny
            self.withEmail = withEmail
        }
        self.hideGone = hideGone
        self.newestFirst = newestFirst
        self.from = from
        self.to = to
        self.titleContains = titleContains
        self.recorded = recorded
        self.visibleTo = visibleTo
        self.offset = offset
        self.after = after
        self.limit = limit
    }
}

/// A meeting's place in the listing order (start, then id; meetings without a start first, or
/// last when newest first).
public struct MeetingPosition: Sendable, Hashable {
    /// The start in milliseconds since 1970, as the catalog stores it.
    public var startMilliseconds: Int64?
    public var id: Int64

    public init(startMilliseconds: Int64?, id: Int64) {
        self.startMilliseconds = startMilliseconds
        self.id = id
    }

    /// The position of a listed meeting.
    public init(_ meeting: MeetingSummary) {
        self.init(startMilliseconds: meeting.start.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }, id: meeting.id)
    }
}

/// One `steno search` result.
public struct SearchHit: Sendable, Hashable, Codable {
    /// `meeting` or `recording`.
    public var kind: String
    public var id: Int64
    public var title: String
    /// The matching text with the match in [brackets].
    public var snippet: String
    public var start: Date?
    /// Set when the words matched more of this kind than are ranked: the hits were ranked
    /// among this many newest matches (the most recently catalogued), not among all.
    public var rankedAmongNewest: Int?

    /// How many matches of each kind are ranked, newest first; a word matching fewer is ranked
    /// among all its matches.
    public static let rankedAmongNewest = 200

    public init(kind: String, id: Int64, title: String, snippet: String, start: Date?, rankedAmongNewest: Int? = nil) {
        self.kind = kind
        self.id = id
        self.title = title
        self.snippet = snippet
        self.start = start
        self.rankedAmongNewest = rankedAmongNewest
    }
}
