import Foundation

/// How a recording came to be linked.
public enum LinkMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// The sidecar's iCalUID names the meeting.
    case iCalUID = "icaluid"
    /// The sidecar's event id names the event.
    case eventID = "event-id"
    /// Time overlap, chosen by ``LinkScorer``'s score.
    case overlap
    /// A person linked it.
    case manual
}

/// Where a link stands.
public enum LinkState: String, Sendable, Hashable, Codable, CaseIterable {
    /// The sidecar names an event that is not mirrored yet.
    case pending
    case linked
    /// Two candidates are too close to call.
    case ambiguous
    /// The linked event disappeared; the cached title and attendees remain.
    case orphaned
    /// No meeting (none fits, or a person unlinked it).
    case unlinked
}

/// What the linker decided for a recording, with everything `explain` shows.
public struct LinkDecision: Sendable, Hashable {
    public var state: LinkState
    public var method: LinkMethod?
    /// The winner (linked), or nil.
    public var chosen: ScoredCandidate?
    /// Every candidate, best first.
    public var candidates: [ScoredCandidate]
    /// Why: the winner's margin, the threshold missed, the event awaited.
    public var reason: String

    public init(state: LinkState, method: LinkMethod?, chosen: ScoredCandidate?, candidates: [ScoredCandidate], reason: String) {
        self.state = state
        self.method = method
        self.chosen = chosen
        self.candidates = candidates
        self.reason = reason
    }

    /// The candidates too close to call, for an ambiguous decision.
    public func contenders(_ policy: LinkPolicy) -> [ScoredCandidate] {
        guard let best = candidates.first(where: { $0.excludedBecause == nil }) else { return [] }
        return candidates.filter { $0.excludedBecause == nil && best.score - $0.score < policy.ambiguityMargin }
    }
}

/// Decides which meeting a recording captured: identity first (the iCalUId or event id the
/// recording carries), then time overlap.
public enum Linker {
    /// Decides a link.
    ///
    /// - Parameters:
    ///   - identityMatches: events whose iCalUID, meeting identity, series UID or remote id
    ///     equals the sidecar's hints (any time; the store finds them).
    ///   - timeCandidates: events visible to the owner overlapping the recording's search window.
    public static func decide(
        _ recording: RecordingLinkFacts, identityMatches: [LinkCandidate], timeCandidates: [LinkCandidate], policy: LinkPolicy = LinkPolicy()
    ) -> LinkDecision {
        if recording.hasIdentityHint {
            // A hint names a meeting only through an event that speaks for the owner: naming the
            // UID of someone else's meeting is no way into it.
            let speaking = identityMatches.filter { $0.ownerRelation != .unrelated }
            let scored = rank(speaking.map { LinkScorer.score($0, for: recording, policy: policy) }, around: recording.recordedAt)
            guard let best = scored.first else {
                let hint = recording.iCalUIDHint ?? recording.eventIDHint ?? ""
                let reason = identityMatches.isEmpty
                    ? "the sidecar names event \(hint), which is not mirrored yet; the link waits for it"
                    : "the sidecar names event \(hint), but no calendar of the owner's (nor its organizer's own copy) holds it "
                        + "with the owner invited; the link waits for such a copy"
                return LinkDecision(
                    state: .pending, method: nil, chosen: nil,
                    candidates: rank(timeCandidates.map { LinkScorer.score($0, for: recording, policy: policy) }, around: recording.recordedAt),
                    reason: reason)
            }
            let byEventID = recording.eventIDHint.map { hint in best.candidate.eventRemoteID == hint } ?? false
            let method: LinkMethod = byEventID || recording.iCalUIDHint == nil ? .eventID : .iCalUID
            let series = scored.count > 1 ? " (the closest of \(scored.count) occurrences of the series)" : ""
            return LinkDecision(
                state: .linked, method: method, chosen: best, candidates: scored,
                reason: "the sidecar's \(method == .eventID ? "event id" : "iCalUID") names this meeting\(series)")
        }
        let scored = rank(timeCandidates.map { LinkScorer.score($0, for: recording, policy: policy) }, around: recording.recordedAt)
        let eligible = scored.filter { $0.excludedBecause == nil }
        guard let best = eligible.first else {
            let reason = scored.isEmpty
                ? "no event of the owner's calendars overlaps the recording (±\(Int(policy.tolerance / 60)) min)"
                : "no overlapping event may be linked by time: "
                    + Set(scored.compactMap(\.excludedBecause)).sorted().joined(separator: "; ")
            return LinkDecision(state: .unlinked, method: nil, chosen: nil, candidates: scored, reason: reason)
        }
        guard best.score >= policy.threshold else {
            return LinkDecision(
                state: .unlinked, method: nil, chosen: nil, candidates: scored,
                reason: "the best candidate scores \(format(best.score)), below the threshold \(format(policy.threshold))")
        }
        if eligible.count > 1, best.score - eligible[1].score < policy.ambiguityMargin {
            return LinkDecision(
                state: .ambiguous, method: .overlap, chosen: nil, candidates: scored,
                reason: "\"\(best.candidate.title)\" (\(format(best.score))) and \"\(eligible[1].candidate.title)\" "
                    + "(\(format(eligible[1].score))) are closer than \(format(policy.ambiguityMargin)) to call")
        }
        let margin = eligible.count > 1 ? ", \(format(best.score - eligible[1].score)) ahead of the next" : ", the only candidate"
        return LinkDecision(
            state: .linked, method: .overlap, chosen: best, candidates: scored,
            reason: "it scores \(format(best.score)) (threshold \(format(policy.threshold)))\(margin)")
    }

    /// Best first; ties broken by the start nearest to `instant` (the closest occurrence of a
    /// series), then event id, so decisions are stable.
    static func rank(_ scored: [ScoredCandidate], around instant: Date) -> [ScoredCandidate] {
        scored.sorted {
            if ($0.excludedBecause == nil) != ($1.excludedBecause == nil) { return $0.excludedBecause == nil }
            if $0.score != $1.score { return $0.score > $1.score }
            let first = abs($0.candidate.start.timeIntervalSince(instant)), second = abs($1.candidate.start.timeIntervalSince(instant))
            if first != second { return first < second }
            return $0.candidate.eventID < $1.candidate.eventID
        }
    }

    static func format(_ score: Double) -> String { String(format: "%.2f", score) }
}
