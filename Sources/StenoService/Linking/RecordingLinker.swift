import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoJSON

/// Links recordings to meetings and revalidates links: feeds the pure ``Linker`` and
/// ``Revalidator`` from the store and writes their decisions (with history) back.
public struct RecordingLinker: Sendable {
    let store: any CatalogStore
    let policy: LinkPolicy
    /// Asks the sources about linked events outside the mirrored window before revalidation
    /// judges their links; nil: the mirror answers for every event.
    let verifier: SourceEventVerifier?
    /// Mirrors the history around recordings dated outside the mirrored window before they
    /// are decided; nil: only the mirror is searched.
    let history: CalendarHistoryFetcher?

    /// A linker over `store`.
    public init(
        store: any CatalogStore, policy: LinkPolicy = LinkPolicy(), verifier: SourceEventVerifier? = nil, history: CalendarHistoryFetcher? = nil
    ) {
        self.store = store
        self.policy = policy
        self.verifier = verifier
        self.history = history
    }

    /// What the linker would decide for a recording now, without writing: `explain`.
    public func explain(recordingID: Int64) async throws -> LinkDecision? {
        guard let (facts, ownerID) = try await store.linkFacts(recordingID: recordingID) else { return nil }
        return try await decide(facts, ownerID: ownerID)
    }

    func decide(_ facts: RecordingLinkFacts, ownerID: Int64?) async throws -> LinkDecision {
        let identity = try await store.identityCandidates(iCalUID: facts.iCalUIDHint, eventID: facts.eventIDHint, ownerID: ownerID)
        let around = try await store.linkCandidates(ownerID: ownerID, window: facts.searchWindow(policy))
        return Linker.decide(facts, identityMatches: identity, timeCandidates: around, policy: policy)
    }

    /// Links (or re-links) a recording, unless a person decided its link. Returns the decision
    /// when it changed the link (nil also when a linked recording no meeting fits any more was
    /// handed to revalidation).
    @discardableResult
    public func link(recordingID: Int64, actor: String = "linker") async throws -> LinkDecision? {
        // Decided again when another job changed the link between the read and the write.
        for _ in 0...Self.staleRetries {
            guard let (facts, ownerID) = try await store.linkFacts(recordingID: recordingID) else { return nil }
            let existing = try await store.link(recordingID: recordingID)
            if existing?.isManual == true { return nil }
            await history?.fetch(around: [(ownerID, facts.recordedAt)])
            let decision = try await decide(facts, ownerID: ownerID)
            let eventID = decision.chosen?.candidate.eventID
            if let existing, existing.state == decision.state, existing.eventID == eventID, existing.method == decision.method {
                return nil
            }
            if existing?.state == .linked && decision.state != .linked {
                // Its event may be gone (then it is orphaned, keeping its cache): revalidation decides.
                _ = try await revalidate(recordingIDs: [recordingID])
                return nil
            }
            let stale = try await store.saveLinks([update(for: decision, recordingID: recordingID, before: existing, actor: actor)])
            if stale.isEmpty { return decision }
        }
        return nil
    }

    /// Hands a recording back to automatic linking: drops a person's link or unlink and writes
    /// what the linker decides now, as `actor`'s change. Returns the decision (nil when the
    /// recording cannot be linked by time: not ready, or no start time; it is left unlinked).
    @discardableResult
    public func reset(recordingID: Int64, actor: String) async throws -> LinkDecision? {
        let action = "reset-to-automatic"
        guard let (facts, ownerID) = try await store.linkFacts(recordingID: recordingID) else {
            try await store.saveLink(
                LinkUpdate(
                    recordingID: recordingID, state: .unlinked, method: nil, eventID: nil, actor: actor, action: action,
                    reason: "handed back to automatic linking; the recording is not ready or has no start time, so nothing links it yet"))
            return nil
        }
        let decision = try await decide(facts, ownerID: ownerID)
        var reset = update(for: decision, recordingID: recordingID, before: try await store.link(recordingID: recordingID), actor: actor)
        reset.action = action
        reset.reason = "handed back to automatic linking: \(decision.reason)"
        // A person's request: written whatever the link became meanwhile.
        reset.expected = nil
        try await store.saveLink(reset)
        return decision
    }

    /// Re-checks one link against the current mirror and writes what changed.
    public func revalidate(recordingID: Int64) async throws -> RevalidationAction {
        try await revalidate(recordingIDs: [recordingID]).first?.key ?? .unchanged
    }

    /// The close candidates of an ambiguous decision as JSON, for `links --ambiguous`.
    static func contendersJSON(_ decision: LinkDecision, policy: LinkPolicy) -> String? {
        guard decision.state == .ambiguous else { return nil }
        // Stored in `links.candidates` and sent to clients as is: members in this order, the
        // score with three decimals.
        var items = JSONArrayWriter()
        for scored in decision.contenders(policy) {
            items.appendObject { item in
                item.member("meeting", scored.candidate.meetingID)
                item.member("event", scored.candidate.eventID)
                item.member("score", scored.score, fractionDigits: 3)
            }
        }
        return items.text
    }
}
