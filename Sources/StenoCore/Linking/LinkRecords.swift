import Foundation

/// A recording's link as listed by `steno links`: its state and the meeting it points at (or
/// the cached copy of a meeting that disappeared).
public struct LinkSummary: Sendable, Hashable, Codable {
    public var recording: Int64
    public var recordingTitle: String?
    public var recordedAt: Date?
    public var owner: String?
    public var state: LinkState
    public var method: LinkMethod?
    public var isManual: Bool
    public var score: Double?
    public var meeting: Int64?
    /// The meeting's title and times as cached when linked (kept for orphans).
    public var meetingTitle: String?
    public var meetingStart: Date?
    public var meetingEnd: Date?
    /// For an ambiguous link: the meetings too close to call, as JSON.
    public var candidates: String?
    public var validatedAt: Date?

    public init(
        recording: Int64, recordingTitle: String?, recordedAt: Date?, owner: String?, state: LinkState, method: LinkMethod?,
        isManual: Bool, score: Double?, meeting: Int64?, meetingTitle: String?, meetingStart: Date?, meetingEnd: Date?,
        candidates: String?, validatedAt: Date?
    ) {
        self.recording = recording
        self.recordingTitle = recordingTitle
        self.recordedAt = recordedAt
        self.owner = owner
        self.state = state
        self.method = method
        self.isManual = isManual
        self.score = score
        self.meeting = meeting
        self.meetingTitle = meetingTitle
        self.meetingStart = meetingStart
        self.meetingEnd = meetingEnd
        self.candidates = candidates
        self.validatedAt = validatedAt
    }
}

/// One change of a link, as `steno links history` shows it.
public struct LinkHistoryEntry: Sendable, Hashable, Codable {
    public var at: Date
    /// `linker`, `revalidation`, or the user who linked by hand.
    public var actor: String
    public var action: String
    public var fromState: LinkState?
    public var toState: LinkState?
    public var fromMeeting: Int64?
    public var toMeeting: Int64?
    public var method: LinkMethod?
    public var score: Double?
    public var reason: String?

    public init(
        at: Date, actor: String, action: String, fromState: LinkState?, toState: LinkState?, fromMeeting: Int64?, toMeeting: Int64?,
        method: LinkMethod?, score: Double?, reason: String?
    ) {
        self.at = at
        self.actor = actor
        self.action = action
        self.fromState = fromState
        self.toState = toState
        self.fromMeeting = fromMeeting
        self.toMeeting = toMeeting
        self.method = method
        self.score = score
        self.reason = reason
    }
}
