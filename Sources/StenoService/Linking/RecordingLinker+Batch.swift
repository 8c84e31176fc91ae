import Foundation
import StenoCore
import StenoStore

extension RecordingLinker {
    /// Recordings per write transaction and per read of facts.
    static let batchSize = 2000
    /// Owners' recordings are linked in time slices of at most this length, so the candidate
    /// events held in memory stay bounded however long the catalog's history.
    static let sliceLength: TimeInterval = 92 * 86_400

    /// Links many recordings: the candidates of each owner are read once per time slice and
    /// matched in memory; the links are written in large transactions. Recordings whose link
    /// a person decided are left alone. Returns how many links changed, by new state.
    ///
    /// The facts of all recordings are read first (small rows), so that an owner's candidates
    /// are read once for the whole run rather than once per batch of recordings.
    public func link(recordingIDs: [Int64], actor: String = "linker") async throws -> [LinkState: Int] {
        var changed: [LinkState: Int] = [:]
        let (facts, existing) = try await factsAndLinks(recordingIDs)
        let work = facts.filter { existing[$0.facts.recordingID]?.isManual != true }
        for (_, items) in Dictionary(grouping: work, by: { $0.ownerID ?? -1 }) {
            var updates: [LinkUpdate] = []
            for (facts, decision) in try await decide(items) {
                let before = existing[facts.recordingID]
                let eventID = decision.chosen?.candidate.eventID
                if let before, before.state == decision.state, before.eventID == eventID, before.method == decision.method { continue }
                updates.append(update(for: decision, recordingID: facts.recordingID, before: before, actor: actor))
                changed[decision.state, default: 0] += 1
            }
            try await save(updates)
        }
        return changed
    }

    /// The link facts and the existing links of many recordings, read in batches.
    func factsAndLinks(_ recordingIDs: [Int64]) async throws
        -> (facts: [(facts: RecordingLinkFacts, ownerID: Int64?)], links: [Int64: ExistingLink])
    {
        var facts: [(facts: RecordingLinkFacts, ownerID: Int64?)] = []
        var links: [Int64: ExistingLink] = [:]
        for batch in Self.batches(recordingIDs) {
            try Task.checkCancellation()
            facts += try await store.linkFacts(recordingIDs: batch).values
            links.merge(try await store.links(recordingIDs: batch)) { _, new in new }
        }
        return (facts, links)
    }

    /// Writes link updates in transactions of at most ``batchSize``.
    func save(_ updates: [LinkUpdate]) async throws {
        for start in stride(from: 0, to: updates.count, by: Self.batchSize) {
            try await store.saveLinks(Array(updates[start..<min(start + Self.batchSize, updates.count)]))
        }
    }

    static func batches(_ ids: [Int64]) -> [[Int64]] {
        stride(from: 0, to: ids.count, by: batchSize).map { Array(ids[$0..<min($0 + batchSize, ids.count)]) }
    }

    /// Decisions for many recordings, reading each owner's candidates once per time slice.
    func decide(_ work: [(facts: RecordingLinkFacts, ownerID: Int64?)]) async throws -> [(RecordingLinkFacts, LinkDecision)] {
        var result: [(RecordingLinkFacts, LinkDecision)] = []
        let byOwner = Dictionary(grouping: work, by: { $0.ownerID ?? -1 })
        for (owner, items) in byOwner {
            let sorted = items.sorted { $0.facts.recordedAt < $1.facts.recordedAt }
            var index = 0
            while index < sorted.count {
                // One slice: recordings starting within sliceLength of the first one.
                let sliceStart = sorted[index].facts.recordedAt
                var end = index
                var windowEnd = sorted[index].facts.searchWindow(policy).end
                while end < sorted.count, sorted[end].facts.recordedAt.timeIntervalSince(sliceStart) < Self.sliceLength {
                    windowEnd = max(windowEnd, sorted[end].facts.searchWindow(policy).end)
                    end += 1
                }
                let window = DateInterval(start: sorted[index].facts.searchWindow(policy).start, end: windowEnd)
                let candidates = try await store.linkCandidates(ownerID: owner < 0 ? nil : owner, window: window)
                let slice = CandidateIndex(candidates)
                for item in sorted[index..<end] {
                    let around = slice.overlapping(item.facts.searchWindow(policy))
                    var identity: [LinkCandidate] = []
                    if item.facts.hasIdentityHint {
                        identity = try await store.identityCandidates(
                            iCalUID: item.facts.iCalUIDHint, eventID: item.facts.eventIDHint, ownerID: item.ownerID)
                    }
                    result.append((item.facts, Linker.decide(item.facts, identityMatches: identity, timeCandidates: around, policy: policy)))
                }
                index = end
            }
        }
        return result
    }

    /// The link write for a decision.
    func update(for decision: LinkDecision, recordingID: Int64, before: ExistingLink?, actor: String) -> LinkUpdate {
        let action: String
        switch decision.state {
        case .linked: action = before?.state == .linked ? "relinked" : "linked"
        case .ambiguous: action = "ambiguous"
        case .pending: action = "pending"
        case .unlinked, .orphaned: action = before?.state == .linked ? "unlinked" : "no-meeting"
        }
        return LinkUpdate(
            recordingID: recordingID, state: decision.state, method: decision.method, eventID: decision.chosen?.candidate.eventID,
            score: decision.chosen?.score, candidatesJSON: Self.contendersJSON(decision, policy: policy), actor: actor, action: action,
            reason: decision.reason)
    }

    /// Revalidates many links (SPEC §7) with batched reads and writes; returns the counts by action.
    public func revalidate(recordingIDs: [Int64]) async throws -> [RevalidationAction: Int] {
        var counts: [RevalidationAction: Int] = [:]
        let (facts, links) = try await factsAndLinks(recordingIDs)
        for (owner, items) in Dictionary(grouping: facts.filter { links[$0.facts.recordingID] != nil }, by: { $0.ownerID ?? -1 }) {
            try Task.checkCancellation()
            let ownerID = owner < 0 ? nil : owner
            let fresh = Dictionary(uniqueKeysWithValues: try await decide(items).map { ($0.0.recordingID, $0.1) })
            let ownLinks = items.compactMap { links[$0.facts.recordingID] }
            var current: [Int64: LinkCandidate] = [:]
            var meetings: [Int64: [LinkCandidate]] = [:]
            for batch in Self.batches(ownLinks.compactMap(\.eventID)) {
                current.merge(try await store.liveEvents(ids: batch, ownerID: ownerID)) { _, new in new }
            }
            for batch in Self.batches(Array(Set(ownLinks.compactMap(\.meetingID)))) {
                meetings.merge(try await store.meetingEvents(meetingIDs: batch, ownerID: ownerID)) { _, new in new }
            }
            var updates: [LinkUpdate] = []
            for item in items {
                guard let link = links[item.facts.recordingID], let freshDecision = fresh[item.facts.recordingID] else { continue }
                let event = link.eventID.flatMap { current[$0] }
                let sameMeeting = (link.meetingID.flatMap { meetings[$0] } ?? []).filter { $0.eventID != link.eventID }
                var sameTitle: [LinkCandidate] = []
                if event == nil, let start = link.cachedStart, sameMeeting.isEmpty {
                    let window = DateInterval(
                        start: start.addingTimeInterval(-policy.titleMatchWindow), end: start.addingTimeInterval(policy.titleMatchWindow + 1))
                    sameTitle = try await store.linkCandidates(ownerID: ownerID, window: window).filter { $0.title == link.cachedTitle }
                }
                let decision = Revalidator.decide(
                    link, recording: item.facts, current: event, sameMeeting: sameMeeting, sameTitleNearStart: sameTitle,
                    fresh: freshDecision, policy: policy)
                counts[decision.action, default: 0] += 1
                if let update = update(for: decision, link: link, fresh: freshDecision) { updates.append(update) }
            }
            try await save(updates)
        }
        return counts
    }

    /// The write for a revalidation decision; nil when nothing changes.
    func update(for decision: RevalidationDecision, link: ExistingLink, fresh: LinkDecision) -> LinkUpdate? {
        switch decision.action {
        case .stillValid, .unchanged, .unchangedOrphan:
            return nil
        case .refreshed, .relinked, .orphaned, .unlinked, .ambiguous:
            return LinkUpdate(
                recordingID: link.recordingID, state: decision.state, method: decision.method, isManual: link.isManual,
                eventID: decision.target?.eventID, keepsCache: decision.action == .orphaned, score: decision.score,
                candidatesJSON: decision.state == .ambiguous ? Self.contendersJSON(fresh, policy: policy) : nil,
                actor: "revalidation", action: decision.action.rawValue, reason: decision.reason)
        }
    }
}

/// Candidates sorted by start, for finding those overlapping a window without a query.
struct CandidateIndex {
    let sorted: [LinkCandidate]
    /// The longest event, so a search can start early enough.
    let longest: TimeInterval

    init(_ candidates: [LinkCandidate]) {
        sorted = candidates.sorted { ($0.start, $0.eventID) < ($1.start, $1.eventID) }
        longest = candidates.map { $0.end.timeIntervalSince($0.start) }.max() ?? 0
    }

    /// Candidates with start < window.end and end > window.start.
    func overlapping(_ window: DateInterval) -> [LinkCandidate] {
        let earliest = window.start.addingTimeInterval(-longest)
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].start < earliest { low = middle + 1 } else { high = middle }
        }
        var result: [LinkCandidate] = []
        var index = low
        while index < sorted.count, sorted[index].start < window.end {
            if sorted[index].end > window.start { result.append(sorted[index]) }
            index += 1
        }
        return result
    }
}
