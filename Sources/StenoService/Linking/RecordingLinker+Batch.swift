import Foundation
import StenoCatalog
import StenoCore

extension RecordingLinker {
    /// Recordings per read of facts and per write transaction.
    static let batchSize = 2000
    /// Link updates gathered before they are written in recording order.
    static let flushSize = 25_000
    /// Owners' recordings are linked in time slices of at most this length, so the events
    /// held in memory stay bounded however long the catalog's history.
    static let sliceLength: TimeInterval = 92 * 86_400

    /// A recording to decide, with its owner.
    typealias Work = (facts: RecordingLinkFacts, ownerID: Int64?)

    /// Links many recordings: each owner's events are scanned once per time slice (times
    /// only), the few near a recording read in full and matched in memory, and the links
    /// written in large transactions while the next owner is being decided. Recordings
    /// whose link a person decided are left alone, orphans stay orphans unless a meeting fits
    /// them now, and a linked recording that no meeting fits any more is revalidated (its
    /// event may be gone: then it is orphaned, keeping its cache, not unlinked). Returns how
    /// many links changed, by new state. `progress` is told what is being done ("fetching
    /// calendar history: 2 of 5 spans", "linking 40 recordings").
    public func link(
        recordingIDs: [Int64], actor: String = "linker", progress: (@Sendable (String) async -> Void)? = nil
    ) async throws -> [LinkState: Int] {
        try await link(recordingIDs: recordingIDs, actor: actor, retries: Self.staleRetries, progress: progress)
    }

    /// How often recordings whose link another job changed meanwhile are decided again before
    /// the work is left to the next job that touches them.
    static let staleRetries = 3

    private func link(
        recordingIDs: [Int64], actor: String, retries: Int, progress: (@Sendable (String) async -> Void)? = nil
    ) async throws -> [LinkState: Int] {
        var changed: [LinkState: Int] = [:]
        var lostTheirMeeting: [Int64] = []
        let (facts, existing) = try await factsAndLinks(recordingIDs)
        let work = facts.filter { existing[$0.facts.recordingID]?.isManual != true }
        await history?.fetch(around: work.map { ($0.ownerID, $0.facts.recordedAt) }) { done, total in
            await progress?("fetching calendar history: \(done) of \(total) spans")
        }
        await progress?("linking \(work.count) recording\(work.count == 1 ? "" : "s")")
        let stale = try await pipelined(Self.byOwner(work)) { items in
            var updates: [LinkUpdate] = []
            for (facts, decision) in try await decide(items).decisions {
                let before = existing[facts.recordingID]
                let eventID = decision.chosen?.candidate.eventID
                if let before, before.state == decision.state, before.eventID == eventID, before.method == decision.method { continue }
                // An orphan keeps its meeting's cached title and attendees for history until a
                // meeting fits the recording again; "no meeting now" adds nothing to that.
                if before?.state == .orphaned && decision.state != .linked { continue }
                if before?.state == .linked && decision.state != .linked {
                    lostTheirMeeting.append(facts.recordingID)
                    continue
                }
                updates.append(update(for: decision, recordingID: facts.recordingID, before: before, actor: actor))
                changed[decision.state, default: 0] += 1
            }
            return updates
        }
        if !lostTheirMeeting.isEmpty {
            for (action, count) in try await revalidate(recordingIDs: lostTheirMeeting) {
                if let state = action.resultingState { changed[state, default: 0] += count }
            }
        }
        guard !stale.isEmpty else { return changed }
        // Decided from a link another job changed meanwhile: not written; decide again.
        for update in stale { changed[update.state, default: 0] -= 1 }
        guard retries > 0 else { return changed.filter { $0.value != 0 } }
        let again = try await link(recordingIDs: stale.map(\.recordingID), actor: actor, retries: retries - 1)
        return changed.merging(again, uniquingKeysWith: +).filter { $0.value != 0 }
    }

    /// Revalidates many links with batched reads and writes; returns the counts by
    /// action. Links to events outside the mirrored window are first checked at the source
    /// (``SourceEventVerifier``); those it could not check stay as they are.
    public func revalidate(recordingIDs: [Int64]) async throws -> [RevalidationAction: Int] {
        try await revalidate(recordingIDs: recordingIDs, retries: Self.staleRetries)
    }

    private func revalidate(recordingIDs: [Int64], retries: Int) async throws -> [RevalidationAction: Int] {
        var counts: [RevalidationAction: Int] = [:]
        let (facts, links) = try await factsAndLinks(recordingIDs)
        // Links to old meetings are judged against the same history a link would be made from.
        await history?.fetch(around: facts.filter { links[$0.facts.recordingID] != nil }.map { ($0.ownerID, $0.facts.recordedAt) })
        var unverified: Set<Int64> = []
        if let verifier {
            let window = verifier.mirroredWindow()
            let outside = links.values.compactMap { link -> Int64? in
                guard link.state == .linked, let eventID = link.eventID, let start = link.cachedStart, !window.contains(start) else { return nil }
                return eventID
            }
            if !outside.isEmpty { unverified = try await verifier.verify(eventIDs: outside) }
        }
        let stale = try await pipelined(Self.byOwner(facts.filter { links[$0.facts.recordingID] != nil })) { items in
            let ownerID = items.first?.ownerID
            let (decisions, events) = try await decide(items)
            let fresh = Dictionary(decisions.map { ($0.0.recordingID, $0.1) }) { first, _ in first }
            let ownLinks = items.compactMap { links[$0.facts.recordingID] }
            // Most linked events were read while deciding; fetch only the others.
            var current = events
            for batch in Self.batches(ownLinks.compactMap(\.eventID).filter { events[$0] == nil }) {
                current.merge(try await store.liveEvents(ids: batch, ownerID: ownerID)) { _, new in new }
            }
            // Other events of the meeting matter only when the linked event is gone.
            let gone = ownLinks.filter { link in link.eventID.map { current[$0] == nil } ?? true }
            var meetings: [Int64: [LinkCandidate]] = [:]
            for batch in Self.batches(Array(Set(gone.compactMap(\.meetingID)))) {
                meetings.merge(try await store.meetingEvents(meetingIDs: batch, ownerID: ownerID)) { _, new in new }
            }
            var updates: [LinkUpdate] = []
            for item in items {
                guard let link = links[item.facts.recordingID], let freshDecision = fresh[item.facts.recordingID] else { continue }
                if let eventID = link.eventID, unverified.contains(eventID) {
                    counts[.unchanged, default: 0] += 1
                    continue
                }
                let event = link.eventID.flatMap { current[$0] }
                let sameMeeting = event != nil ? [] : (link.meetingID.flatMap { meetings[$0] } ?? []).filter { $0.eventID != link.eventID }
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
            return updates
        }
        guard !stale.isEmpty else { return counts }
        // Decided from a link another job changed meanwhile: not written; check again.
        for update in stale {
            if let action = RevalidationAction(rawValue: update.action) { counts[action, default: 0] -= 1 }
        }
        guard retries > 0 else { return counts.filter { $0.value != 0 } }
        let again = try await revalidate(recordingIDs: stale.map(\.recordingID), retries: retries - 1)
        return counts.merging(again, uniquingKeysWith: +).filter { $0.value != 0 }
    }

    /// Runs `decide` for each group and writes what it returns in the background while the next
    /// groups are decided. Updates are gathered across groups and written in recording order,
    /// ``flushSize`` at a time: an owner's recordings are spread over the whole catalog, and
    /// writing them owner by owner rewrote nearly every page of the link tables once per owner.
    /// Returns the updates not written because their link had changed since it was read.
    func pipelined(_ groups: [[Work]], _ decide: ([Work]) async throws -> [LinkUpdate]) async throws -> [LinkUpdate] {
        try await withThrowingTaskGroup(of: [LinkUpdate].self) { writes in
            var stale: [LinkUpdate] = []
            var writing = false
            var pending: [LinkUpdate] = []
            func flush() async throws {
                if writing, let skipped = try await writes.next() { stale += skipped }
                // Ordered by recording, and by decision for the same recording (applied in turn).
                let ordered = pending.enumerated().sorted { ($0.element.recordingID, $0.offset) < ($1.element.recordingID, $1.offset) }
                    .map(\.element)
                pending.removeAll(keepingCapacity: true)
                writes.addTask { try await save(ordered) }
                writing = true
            }
            for items in groups {
                try Task.checkCancellation()
                pending += try await decide(items)
                if pending.count >= Self.flushSize { try await flush() }
            }
            if !pending.isEmpty { try await flush() }
            for try await skipped in writes { stale += skipped }
            return stale
        }
    }

    /// Work grouped by owner (recordings without an owner form one group).
    static func byOwner(_ work: [Work]) -> [[Work]] {
        Array(Dictionary(grouping: work, by: { $0.ownerID ?? -1 }).values)
    }

    /// The link facts and the existing links of many recordings, read in batches.
    func factsAndLinks(_ recordingIDs: [Int64]) async throws -> (facts: [Work], links: [Int64: ExistingLink]) {
        var facts: [Work] = []
        var links: [Int64: ExistingLink] = [:]
        for batch in Self.batches(recordingIDs) {
            try Task.checkCancellation()
            facts += try await store.linkFacts(recordingIDs: batch).values
            links.merge(try await store.links(recordingIDs: batch)) { _, new in new }
        }
        return (facts, links)
    }

    /// Writes link updates in transactions of at most ``batchSize``; returns those not written
    /// because their link had changed since it was read.
    func save(_ updates: [LinkUpdate]) async throws -> [LinkUpdate] {
        var stale: [LinkUpdate] = []
        for start in stride(from: 0, to: updates.count, by: Self.batchSize) {
            let batch = updates[start..<min(start + Self.batchSize, updates.count)]
            let skipped = try await store.saveLinks(Array(batch))
            if !skipped.isEmpty { stale += batch.filter { skipped.contains($0.recordingID) } }
        }
        return stale
    }

    static func batches(_ ids: [Int64]) -> [[Int64]] {
        stride(from: 0, to: ids.count, by: batchSize).map { Array(ids[$0..<min($0 + batchSize, ids.count)]) }
    }

    /// Decisions for one owner's recordings: the times of the owner's events are scanned once
    /// for all of them (spans are small), and the events near each recording are read in full
    /// one time slice at a time, so what is held in memory stays bounded however long the
    /// owner's history. Also returns the events read in full, by id.
    func decide(_ items: [Work]) async throws -> (decisions: [(RecordingLinkFacts, LinkDecision)], events: [Int64: LinkCandidate]) {
        var result: [(RecordingLinkFacts, LinkDecision)] = []
        var events: [Int64: LinkCandidate] = [:]
        let ownerID = items.first?.ownerID
        let sorted = items.sorted { $0.facts.recordedAt < $1.facts.recordedAt }
        guard let first = sorted.first else { return ([], [:]) }
        let searched = sorted.dropFirst().reduce(first.facts.searchWindow(policy)) { window, item in
            let next = item.facts.searchWindow(policy)
            return DateInterval(start: min(window.start, next.start), end: max(window.end, next.end))
        }
        // Only the times of the owner's events, then the few near a recording in full: most of
        // a busy calendar is never a candidate.
        let spans = EventSpanIndex(try await store.linkCandidateSpans(ownerID: ownerID, window: searched))
        var index = 0
        while index < sorted.count {
            // One slice: recordings starting within sliceLength of the first one.
            let sliceStart = sorted[index].facts.recordedAt
            var end = index
            while end < sorted.count, sorted[end].facts.recordedAt.timeIntervalSince(sliceStart) < Self.sliceLength { end += 1 }
            let nearby = sorted[index..<end].map { spans.overlapping($0.facts.searchWindow(policy)) }
            for batch in Self.batches(Array(Set(nearby.joined()).subtracting(events.keys))) {
                events.merge(try await store.liveEvents(ids: batch, ownerID: ownerID)) { _, new in new }
            }
            for (item, ids) in zip(sorted[index..<end], nearby) {
                let around = LinkCandidate.onePerMeeting(ids.compactMap { events[$0] })
                var identity: [LinkCandidate] = []
                if item.facts.hasIdentityHint {
                    identity = try await store.identityCandidates(
                        iCalUID: item.facts.iCalUIDHint, eventID: item.facts.eventIDHint, ownerID: item.ownerID)
                }
                result.append((item.facts, Linker.decide(item.facts, identityMatches: identity, timeCandidates: around, policy: policy)))
            }
            index = end
        }
        return (result, events)
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
            reason: decision.reason, expected: LinkExpectation(before))
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
                actor: "revalidation", action: decision.action.rawValue, reason: decision.reason, expected: LinkExpectation(link))
        }
    }
}
