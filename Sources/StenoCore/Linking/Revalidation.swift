import Foundation

/// A link as stored, as revalidation sees it.
public struct ExistingLink: Sendable, Hashable {
    public var recordingID: Int64
    public var state: LinkState
    public var method: LinkMethod?
    /// A person made (or removed) this link: revalidation keeps their decision.
    public var isManual: Bool
    public var meetingID: Int64?
    public var eventID: Int64?
    /// What the link remembers of its meeting, kept when the event disappears.
    public var cachedTitle: String?
    public var cachedStart: Date?
    public var cachedEnd: Date?

    public init(
        recordingID: Int64, state: LinkState, method: LinkMethod? = nil, isManual: Bool = false, meetingID: Int64? = nil,
        eventID: Int64? = nil, cachedTitle: String? = nil, cachedStart: Date? = nil, cachedEnd: Date? = nil
    ) {
        self.recordingID = recordingID
        self.state = state
        self.method = method
        self.isManual = isManual
        self.meetingID = meetingID
        self.eventID = eventID
        self.cachedTitle = cachedTitle
        self.cachedStart = cachedStart
        self.cachedEnd = cachedEnd
    }
}

/// What revalidation found for one link (the counts `steno revalidate` ends with).
public enum RevalidationAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// The event is there and unchanged.
    case stillValid = "still-valid"
    /// The event is there and changed (title, time, attendees): the cache is refreshed.
    case refreshed
    /// The link now points at another event or meeting.
    case relinked
    /// The event is gone and nothing replaces it; the cached copy stays.
    case orphaned
    /// Already orphaned, and its meeting has not reappeared.
    case unchangedOrphan = "unchanged-orphan"
    /// An automatic link that no longer fits and has no replacement.
    case unlinked
    /// An automatic link whose event moved between two candidates too close to call.
    case ambiguous
    /// Nothing to do (pending, unlinked or ambiguous as before, or a person's unlink).
    case unchanged

    /// The state a link changed to, for counts of changed links by state; nil when its state
    /// and target stayed (a refreshed cache is not a new link).
    public var resultingState: LinkState? {
        switch self {
        case .relinked: .linked
        case .orphaned: .orphaned
        case .unlinked: .unlinked
        case .ambiguous: .ambiguous
        case .stillValid, .refreshed, .unchangedOrphan, .unchanged: nil
        }
    }
}

/// Revalidation's verdict on one link.
public struct RevalidationDecision: Sendable, Hashable {
    public var action: RevalidationAction
    /// The state the link ends in.
    public var state: LinkState
    public var method: LinkMethod?
    /// The event the link points at afterwards (nil when none).
    public var target: LinkCandidate?
    public var score: Double?
    public var reason: String

    public init(action: RevalidationAction, state: LinkState, method: LinkMethod?, target: LinkCandidate?, score: Double?, reason: String) {
        self.action = action
        self.state = state
        self.method = method
        self.target = target
        self.score = score
        self.reason = reason
    }
}

/// Re-checks a link against the current mirror (nightly and on request): the event still there → refresh;
/// moved so an automatic link no longer fits → relink; gone → the same meeting elsewhere → the
/// same title within ±5 min of the start → otherwise orphaned, with the cache kept.
public enum Revalidator {
    /// Decides what becomes of `link`.
    ///
    /// - Parameters:
    ///   - current: the link's event, if it still exists (not deleted).
    ///   - sameMeeting: other live events of the link's meeting (the same iCalUID in another
    ///     calendar, or the event deleted and created again under a new id).
    ///   - sameTitleNearStart: live events with the cached title starting within
    ///     ``LinkPolicy/titleMatchWindow`` of the cached start.
    ///   - fresh: what the linker decides today for the recording.
    public static func decide(
        _ link: ExistingLink, recording: RecordingLinkFacts, current: LinkCandidate?, sameMeeting: [LinkCandidate],
        sameTitleNearStart: [LinkCandidate], fresh: LinkDecision, policy: LinkPolicy = LinkPolicy()
    ) -> RevalidationDecision {
        if link.state == .unlinked && link.isManual {
            return RevalidationDecision(
                action: .unchanged, state: .unlinked, method: .manual, target: nil, score: nil, reason: "a person unlinked it")
        }
        guard link.state == .linked || link.state == .orphaned, link.meetingID != nil else {
            return adopt(fresh, from: link, policy: policy)
        }
        // An automatic link holds only through events that speak for the owner (a link made
        // before that rule, to a member's planted copy, is decided afresh).
        let sameMeeting = link.isManual ? sameMeeting : sameMeeting.filter { $0.ownerRelation != .unrelated }
        let sameTitleNearStart = link.isManual ? sameTitleNearStart : sameTitleNearStart.filter { $0.ownerRelation != .unrelated }
        if let current, !link.isManual, current.ownerRelation == .unrelated {
            return adopt(fresh, from: link, policy: policy, movedFrom: nil)
        }
        if let current {
            let fits = link.isManual || link.method != .overlap || stillFits(current, recording: recording, fresh: fresh, policy: policy)
            if fits {
                let changed = current.title != link.cachedTitle || current.start != link.cachedStart || current.end != link.cachedEnd
                let score = link.method == .overlap ? LinkScorer.score(current, for: recording, policy: policy).score : nil
                if link.state == .orphaned {
                    return RevalidationDecision(
                        action: .relinked, state: .linked, method: link.method, target: current, score: score,
                        reason: "its event is back")
                }
                return RevalidationDecision(
                    action: changed ? .refreshed : .stillValid, state: .linked, method: link.method, target: current, score: score,
                    reason: changed ? "the event changed; the cached copy is refreshed" : "the event is unchanged")
            }
            // An automatic link whose event moved away (or was cancelled): link afresh.
            return adopt(fresh, from: link, policy: policy, movedFrom: current)
        }
        let method = link.isManual ? LinkMethod.manual : link.method
        if let again = sameMeeting.first {
            return RevalidationDecision(
                action: .relinked, state: .linked, method: method, target: again, score: nil,
                reason: "the event is gone, but its meeting is in a calendar under another id")
        }
        if let title = link.cachedTitle, let start = link.cachedStart,
            let twin = sameTitleNearStart.filter({ $0.title == title && abs($0.start.timeIntervalSince(start)) <= policy.titleMatchWindow })
                .min(by: { abs($0.start.timeIntervalSince(start)) < abs($1.start.timeIntervalSince(start)) })
        {
            return RevalidationDecision(
                action: .relinked, state: .linked, method: method, target: twin, score: nil,
                reason: "the event is gone; \"\(title)\" starting within \(Int(policy.titleMatchWindow / 60)) min replaces it")
        }
        if link.state == .orphaned {
            return RevalidationDecision(
                action: .unchangedOrphan, state: .orphaned, method: link.method, target: nil, score: nil,
                reason: "its meeting has not reappeared")
        }
        return RevalidationDecision(
            action: .orphaned, state: .orphaned, method: link.method, target: nil, score: nil,
            reason: "the event was deleted and no event replaces it; the cached title and attendees are kept")
    }

    /// Whether the linked event still fits the recording: it scores above the threshold and
    /// nothing beats it by the ambiguity margin.
    static func stillFits(_ current: LinkCandidate, recording: RecordingLinkFacts, fresh: LinkDecision, policy: LinkPolicy) -> Bool {
        let scored = LinkScorer.score(current, for: recording, policy: policy)
        guard scored.excludedBecause == nil, scored.score >= policy.threshold else { return false }
        guard let best = fresh.candidates.first(where: { $0.excludedBecause == nil }) else { return true }
        return best.candidate.meetingID == current.meetingID || best.score - scored.score < policy.ambiguityMargin
    }

    /// Takes the linker's fresh decision for a link that is not (or no longer) bound to its event.
    static func adopt(_ fresh: LinkDecision, from link: ExistingLink, policy: LinkPolicy, movedFrom: LinkCandidate? = nil) -> RevalidationDecision {
        let moved = movedFrom.map { event in
            let shift = Int((event.start.timeIntervalSince(link.cachedStart ?? event.start) / 60).rounded())
            return event.status == .cancelled ? "the event was cancelled" : "the event moved by \(shift) min"
        }
        switch fresh.state {
        case .linked:
            guard let chosen = fresh.chosen else { break }
            if chosen.candidate.meetingID == link.meetingID && link.state == .linked && movedFrom == nil {
                return RevalidationDecision(
                    action: .unchanged, state: .linked, method: fresh.method, target: chosen.candidate, score: chosen.score,
                    reason: "as before")
            }
            return RevalidationDecision(
                action: .relinked, state: .linked, method: fresh.method, target: chosen.candidate, score: chosen.score,
                reason: [moved, fresh.reason].compactMap { $0 }.joined(separator: "; "))
        case .ambiguous:
            return RevalidationDecision(
                action: link.state == .ambiguous ? .unchanged : .ambiguous, state: .ambiguous, method: .overlap, target: nil, score: nil,
                reason: [moved, fresh.reason].compactMap { $0 }.joined(separator: "; "))
        case .pending, .unlinked, .orphaned:
            break
        }
        let wasBound = link.state == .linked
        return RevalidationDecision(
            action: wasBound ? .unlinked : .unchanged, state: fresh.state == .pending ? .pending : .unlinked, method: nil, target: nil,
            score: nil, reason: [moved, fresh.reason].compactMap { $0 }.joined(separator: "; "))
    }
}
