import Foundation
import StenoCore

/// What linking and revalidation read from and write to the catalog. The decisions
/// themselves are pure (``Linker``, ``Revalidator`` in StenoCore); this is their I/O.
public protocol LinkStore: Sendable {
    /// The facts the linker needs about a ready recording with a start time; nil otherwise.
    func linkFacts(recordingID: Int64) async throws -> (facts: RecordingLinkFacts, ownerID: Int64?)?
    /// Live events the owner may link to, overlapping `window`: events of the owner's own
    /// calendars and events the owner organises or is invited to (by email). One per meeting.
    func linkCandidates(ownerID: Int64?, window: DateInterval) async throws -> [LinkCandidate]
    /// The times of the events `linkCandidates` would return for the window, unread otherwise
    /// (an event the owner relates to in several ways may appear more than once).
    func linkCandidateSpans(ownerID: Int64?, window: DateInterval) async throws -> [EventSpan]
    /// Live events named by a sidecar's hints: iCalUID, meeting identity, series UID, or event id.
    func identityCandidates(iCalUID: String?, eventID: String?, ownerID: Int64?) async throws -> [LinkCandidate]
    /// The live events of a meeting other than `exceptEventID`.
    func meetingEvents(meetingID: Int64, exceptEventID: Int64?, ownerID: Int64?) async throws -> [LinkCandidate]
    /// One event if it is live (not deleted).
    func liveEvent(id: Int64, ownerID: Int64?) async throws -> LinkCandidate?
    /// The stored link of a recording.
    func link(recordingID: Int64) async throws -> ExistingLink?
    /// Writes a link, its attendee cache and a history entry, in one transaction.
    func saveLink(_ update: LinkUpdate) async throws
    /// Writes many links in one transaction (bulk linking and revalidation). An update with an
    /// `expected` link is written only while the link is still as it was read; the recordings
    /// of updates skipped so are returned, for the caller to decide again on what it finds now.
    @discardableResult
    func saveLinks(_ updates: [LinkUpdate]) async throws -> Set<Int64>
    /// ``linkFacts(recordingID:)`` for many recordings at once (missing ones are left out).
    func linkFacts(recordingIDs: [Int64]) async throws -> [Int64: (facts: RecordingLinkFacts, ownerID: Int64?)]
    /// The stored links of many recordings.
    func links(recordingIDs: [Int64]) async throws -> [Int64: ExistingLink]
    /// Live events by id as one owner relates to them.
    func liveEvents(ids: [Int64], ownerID: Int64?) async throws -> [Int64: LinkCandidate]
    /// The live events of many meetings, as one owner relates to them, by meeting.
    func meetingEvents(meetingIDs: [Int64], ownerID: Int64?) async throws -> [Int64: [LinkCandidate]]
    /// Recordings whose links are not settled (none yet, pending, unlinked or ambiguous, not
    /// by a person) recorded within `window`, or all such recordings when nil.
    func unsettledRecordings(recordedWithin window: DateInterval?) async throws -> [Int64]
    /// Links to a meeting, or pointing at an event, changed at or after `since`.
    func linksTouchedByEvents(changedSince since: Date) async throws -> [Int64]
    /// Every recording with a link (linked, orphaned, ambiguous, pending), for the nightly run.
    func linkedRecordings() async throws -> [Int64]
    /// The time span of events changed at or after `since` (nil when none).
    func changedEventSpan(since: Date) async throws -> DateInterval?
    /// Links by recording id, of one state when given; only recordings `visibleTo` owns (nil: all).
    func links(state: LinkState?, visibleTo userID: Int64?, afterRecordingID: Int64?, limit: Int) async throws -> [LinkSummary]
    /// The attendees cached on a recording's link (kept when its event disappears), organizer first.
    func linkAttendees(recordingID: Int64) async throws -> [Attendee]
    /// A link's changes, oldest first.
    func linkHistory(recordingID: Int64) async throws -> [LinkHistoryEntry]
}

/// A link to write.
public struct LinkUpdate: Sendable, Hashable {
    public var recordingID: Int64
    public var state: LinkState
    public var method: LinkMethod?
    public var isManual: Bool
    /// The event linked to (its meeting, title, times and attendees are cached from it).
    public var eventID: Int64?
    /// For an orphan or a manual unlink: keep the meeting and cache, drop only the event.
    public var keepsCache: Bool
    public var score: Double?
    /// The close candidates of an ambiguous link (JSON).
    public var candidatesJSON: String?
    /// Who: `linker`, `revalidation`, or a user name.
    public var actor: String
    /// What happened, for the history: `linked`, `relinked`, `refreshed`, `orphaned`, …
    public var action: String
    public var reason: String
    public var at: Date
    /// The link this update was decided from (nil: write whatever the link is now). Two link
    /// jobs may decide the same recording at once; the one that read a link the other has
    /// since changed must not overwrite that change with a decision about the old one.
    public var expected: LinkExpectation?

    public init(
        recordingID: Int64, state: LinkState, method: LinkMethod?, isManual: Bool = false, eventID: Int64?, keepsCache: Bool = false,
        score: Double? = nil, candidatesJSON: String? = nil, actor: String, action: String, reason: String, at: Date = Date(),
        expected: LinkExpectation? = nil
    ) {
        self.recordingID = recordingID
        self.state = state
        self.method = method
        self.isManual = isManual
        self.eventID = eventID
        self.keepsCache = keepsCache
        self.score = score
        self.candidatesJSON = candidatesJSON
        self.actor = actor
        self.action = action
        self.reason = reason
        self.at = at
        self.expected = expected
    }
}

/// A recording's link as it was read: its state, event and whether a person decided it.
public struct LinkExpectation: Sendable, Hashable {
    /// nil: the recording had no link.
    public var state: LinkState?
    public var eventID: Int64?
    public var isManual: Bool

    public init(state: LinkState?, eventID: Int64?, isManual: Bool) {
        self.state = state
        self.eventID = eventID
        self.isManual = isManual
    }

    /// The link `existing` describes, or no link at all.
    public init(_ existing: ExistingLink?) {
        self.init(state: existing?.state, eventID: existing?.eventID, isManual: existing?.isManual ?? false)
    }
}
