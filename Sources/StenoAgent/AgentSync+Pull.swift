import Foundation

extension AgentSync {
    /// Stages 1 and 2: reads the feed since the saved cursor, applies its rows to the device,
    /// confirms the events created for Steno, and saves the cursor when every row went through.
    func pull(_ state: inout AgentSyncState, _ report: inout AgentSyncReport) async throws {
        let feed = try await client.changes(since: state.lastServerSyncAt ?? 0, includeDeleted: true)
        report.pulled = feed.events.count
        var complete = true
        for row in feed.events {
            do {
                if row.isEvent(ofDevice: configuration.deviceId) {
                    try await applyOwnRow(row, &state, &report)
                } else if row.isCreationRequest {
                    try await applyCreationRequest(row, &state, &report)
                }
            } catch {
                complete = false
                report.issues.append(AgentSyncIssue(stage: .apply, subject: row.id, message: Self.describe(error)))
            }
        }
        // Saved before confirming: an event created now must never be created again, even if
        // the app is killed before the server hears of it.
        try await stateStore.save(state)
        try await confirmCreatedEvents(&state, &report)
        if complete {
            state.lastServerSyncAt = feed.serverTime
            report.serverTime = feed.serverTime
        }
        try await stateStore.save(state)
    }

    /// A row of this device's own event: the device follows Steno's copy when it differs and
    /// the device has not changed the event since; a deleted row deletes the device's event.
    private func applyOwnRow(_ row: ServerEvent, _ state: inout AgentSyncState, _ report: inout AgentSyncReport) async throws {
        guard let key = row.key else { return }
        if row.isDeleted {
            if try await store.deleteEvent(key) { report.deletedLocally += 1 }
            forget(key, in: &state)
            return
        }
        // Gone from the device: the push stage sends the deletion.
        guard let local = try await store.event(key) else { return }
        // Changed on the device after what Steno holds: the push stage sends the device's version.
        if let mine = local.externalUpdatedAt, let theirs = row.externalUpdatedAt, mine > theirs { return }
        guard local.differs(from: row, defaultTimeZone: defaultTimeZone) else { return }
        guard let updated = try await store.updateEvent(key, from: row) else { return }
        state.remember(updated, defaultTimeZone: defaultTimeZone)
        report.updatedLocally += 1
    }

    /// A row Steno asks the device to create: created once (in the row's calendar, else the
    /// fallback), then confirmed by ``confirmCreatedEvents(_:_:)``. A deleted request removes
    /// the event created for it.
    private func applyCreationRequest(_ row: ServerEvent, _ state: inout AgentSyncState, _ report: inout AgentSyncReport) async throws {
        if let createdKey = state.pendingLinks[row.id] {
            if row.isDeleted {
                if try await store.deleteEvent(createdKey) { report.deletedLocally += 1 }
                state.pendingLinks[row.id] = nil
            } else if try await store.event(createdKey) == nil {
                // Deleted on the device before the server heard of it: the user's choice stands.
                state.pendingLinks[row.id] = nil
            }
            return
        }
        guard !row.isDeleted else { return }
        let created = try await create(row)
        state.pendingLinks[row.id] = created.key
        report.created += 1
    }

    /// Creates the row's event in its calendar, or in the fallback one when it names none or
    /// the device refuses it there.
    private func create(_ row: ServerEvent) async throws -> DeviceEvent {
        let fallback = configuration.fallbackCalendarId
        guard let calendar = row.externalCalendarId ?? fallback else {
            throw CreationError.noCalendar(rowID: row.id)
        }
        do {
            return try await store.createEvent(from: row, inCalendar: calendar)
        } catch {
            guard let fallback, fallback != calendar else { throw error }
            return try await store.createEvent(from: row, inCalendar: fallback)
        }
    }

    /// Upserts the events created for feed rows with their `serverId`; the ones the server
    /// takes are linked on its side and leave `pendingLinks`.
    func confirmCreatedEvents(_ state: inout AgentSyncState, _ report: inout AgentSyncReport) async throws {
        var events: [DeviceEvent] = []
        for (rowID, key) in state.pendingLinks.sorted(by: { $0.key < $1.key }) {
            guard var event = try await store.event(key) else {
                state.pendingLinks[rowID] = nil
                continue
            }
            event.serverId = rowID
            events.append(event)
        }
        guard !events.isEmpty else { return }
        let answer = try await client.upsert(events)
        for (event, result) in zip(events, answer.results) {
            guard let rowID = event.serverId else { continue }
            if result.status == .error {
                report.issues.append(AgentSyncIssue(stage: .link, subject: rowID, message: result.errorDescription ?? "refused"))
                continue
            }
            state.pendingLinks[rowID] = nil
            state.remember(event, defaultTimeZone: defaultTimeZone)
            report.linked += 1
        }
    }

    /// Forgets `key`, and every occurrence of it when it names none.
    private func forget(_ key: EventKey, in state: inout AgentSyncState) {
        state.forget(key)
        guard key.occurrenceDate == nil else { return }
        for (name, entry) in state.known where entry.externalId == key.externalId {
            state.known[name] = nil
        }
    }
}

/// Why a feed row could not be created on the device.
enum CreationError: Error, CustomStringConvertible {
    case noCalendar(rowID: String)

    var description: String {
        switch self {
        case .noCalendar(let rowID):
            return "row \(rowID) names no calendar and no fallback calendar is configured"
        }
    }
}
