import Foundation

extension AgentSync {
    /// Stage 3 and 4: scans the window, upserts what is new or changed and the deletions of
    /// events known in the window that are gone, then saves `lastAppleSyncAt` and the events seen.
    func push(_ state: inout AgentSyncState, _ report: inout AgentSyncReport, now: Date) async throws {
        let scannedAt = EpochMilliseconds.from(now)
        let window = configuration.window(around: now)
        let events = try await store.events(in: window)
        let awaitingLink = Set(state.pendingLinks.values)
        var changed: [DeviceEvent] = []
        var present = Set<String>()
        for event in events where !event.isDeletion {
            present.insert(event.key.description)
            if awaitingLink.contains(event.key) || !needsPush(event, state) { continue }
            changed.append(event)
        }
        var deletions: [DeviceEvent] = []
        var leftTheWindow: [EventKey] = []
        for (name, entry) in state.known.sorted(by: { $0.key < $1.key }) where !present.contains(name) {
            if let moved = try await store.event(entry.key) {
                // Still on the device, out of the window now (moved far away, or time passed):
                // not a deletion. Its last version goes up, then the loop forgets it; should it
                // come back into the window, it is new to the loop and sent again.
                if !state.isCurrent(moved) { changed.append(moved) }
                leftTheWindow.append(entry.key)
            } else if entry.overlaps(window) {
                deletions.append(.deletion(externalId: entry.externalId, occurrenceDate: entry.occurrenceDate))
            } else {
                // Gone, but it was out of the window already: the server keeps its copy.
                state.known[name] = nil
            }
        }
        let outgoing = changed + deletions
        let size = StenoAgentClient.upsertBatchSize
        do {
            for first in stride(from: 0, to: outgoing.count, by: size) {
                let batch = Array(outgoing[first..<min(first + size, outgoing.count)])
                let answer = try await client.upsert(batch)
                for (event, result) in zip(batch, answer.results) {
                    record(result, for: event, &state, &report)
                }
            }
        } catch {
            // The batches that went through are kept: a first push of thousands of events on
            // a flaky network resumes where it stopped (the scan cursor stays, so every event
            // is looked at again, and the ones the server holds are skipped).
            try await stateStore.save(state)
            throw error
        }
        for key in leftTheWindow { state.forget(key) }
        report.pushed = changed.count
        report.deletionsSent = deletions.count
        state.lastAppleSyncAt = scannedAt
        try await stateStore.save(state)
    }

    /// Whether the server may not hold `event` as it is: new to the loop, or stamped since
    /// the last scan with a content the loop has not sent (the loop's own writes are known).
    private func needsPush(_ event: DeviceEvent, _ state: AgentSyncState) -> Bool {
        guard let entry = state.known[event.key.description] else { return true }
        if let lastScan = state.lastAppleSyncAt, let stamp = event.externalUpdatedAt, stamp < lastScan,
            entry.externalUpdatedAt.map({ stamp <= $0 }) ?? true
        {
            return false
        }
        return !state.isCurrent(event)
    }

    /// What the server's answer for one upserted event means for the state.
    private func record(_ result: UpsertResult, for event: DeviceEvent, _ state: inout AgentSyncState, _ report: inout AgentSyncReport) {
        if result.status == .error {
            report.issues.append(AgentSyncIssue(stage: .push, subject: event.key.description, message: result.errorDescription ?? "refused"))
            // A refused change is looked at again next run; a refused deletion stays known
            // and is sent again.
            if !event.isDeletion { state.forget(event.key) }
            return
        }
        // ok, unchanged, and stale (the server holds a newer version) all settle the event.
        if event.isDeletion {
            state.forget(event.key)
        } else {
            state.remember(event, defaultTimeZone: defaultTimeZone)
        }
    }
}
