import Foundation
import StenoCore

extension StenoMethods {
    // MARK: links.*, recordings.explain

    /// Every candidate meeting of a recording with the terms of its score, and why the winner
    /// won (or why none did). Computed now from the mirror; nothing is written.
    public static let recordingsExplain = RPCMethodDescriptor<RecordingReferenceParams, LinkExplanation>("recordings.explain")
    /// Links of the recordings the caller owns (admins: all), optionally of one state.
    public static let linksList = RPCMethodDescriptor<LinkListParams, Page<LinkSummary>>("links.list")
    /// A recording's link history, oldest first.
    public static let linksHistory = RPCMethodDescriptor<RecordingReferenceParams, [LinkHistoryEntry]>("links.history")
    /// Links a recording to a meeting by hand; manual links win over automatic ones and survive revalidation.
    /// Refused when the two are apart in time (beyond the linker's tolerance) unless `force`.
    public static let linksSet = RPCMethodDescriptor<LinkSetParams, LinkSummary>("links.set")
    /// Unlinks a recording by hand; it stays unlinked until a person links it or resets it. The
    /// meeting's cached title, times and attendees stay, for history.
    public static let linksRemove = RPCMethodDescriptor<RecordingReferenceParams, LinkSummary>("links.remove")
    /// Hands a recording back to automatic linking (undoes a manual link or unlink) and links it now.
    public static let linksReset = RPCMethodDescriptor<RecordingReferenceParams, LinkSummary>("links.reset")
    /// Queues a revalidation of every link now (admin); returns the job.
    public static let linksRevalidate = RPCMethodDescriptor<NoParams, JobEnqueueResult>("links.revalidate")
}

/// Params of `links.list`.
public struct LinkListParams: Codable, Sendable, Hashable {
    /// Only links in this state (`linked`, `ambiguous`, `orphaned`, `pending`, `unlinked`).
    public var state: LinkState?
    public var cursor: String?
    public var limit: Int?

    public init(state: LinkState? = nil, cursor: String? = nil, limit: Int? = nil) {
        self.state = state
        self.cursor = cursor
        self.limit = limit
    }
}

/// Params of `links.set`.
public struct LinkSetParams: Codable, Sendable, Hashable {
    public var recording: Int64
    public var meeting: Int64
    /// Link even when the recording and the meeting are apart in time (absent: false).
    public var force: Bool?

    public init(recording: Int64, meeting: Int64, force: Bool? = nil) {
        self.recording = recording
        self.meeting = meeting
        self.force = force
    }
}

/// What `recordings.explain` returns.
public struct LinkExplanation: Codable, Sendable, Hashable {
    public var recording: Int64
    /// What the linker decides now.
    public var state: LinkState
    public var method: LinkMethod?
    public var meeting: Int64?
    public var reason: String
    /// Every candidate, best first.
    public var candidates: [CandidateExplanation]
    /// The stored link, which may differ (a manual link, or a decision from before a sync).
    public var stored: LinkSummary?

    public init(
        recording: Int64, state: LinkState, method: LinkMethod?, meeting: Int64?, reason: String, candidates: [CandidateExplanation],
        stored: LinkSummary?
    ) {
        self.recording = recording
        self.state = state
        self.method = method
        self.meeting = meeting
        self.reason = reason
        self.candidates = candidates
        self.stored = stored
    }
}

/// One candidate meeting with its score's arithmetic.
public struct CandidateExplanation: Codable, Sendable, Hashable {
    public var meeting: Int64
    public var event: Int64
    public var title: String
    public var start: Date
    public var end: Date
    public var score: Double
    public var terms: [ScoreTerm]
    /// Why it cannot link by time (cancelled, all-day), if so.
    public var excludedBecause: String?

    public init(
        meeting: Int64, event: Int64, title: String, start: Date, end: Date, score: Double, terms: [ScoreTerm], excludedBecause: String?
    ) {
        self.meeting = meeting
        self.event = event
        self.title = title
        self.start = start
        self.end = end
        self.score = score
        self.terms = terms
        self.excludedBecause = excludedBecause
    }
}
