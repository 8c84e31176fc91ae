import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `links.set`: a link made by hand. The easy mistakes — ids given in the wrong order, a
/// mistyped meeting a month away — are refused with what the two really are, unless forced.
extension LinkMethods {
    func linkByHand(_ params: LinkSetParams, caller: Caller) async throws -> LinkSummary {
        let recording: Recording
        do {
            recording = try await ownRecording(params.recording, caller: caller)
        } catch let error as StoreError {
            guard case .notFound = error else { throw error }
            if let hint = try await swappedHint(params, caller: caller) { throw hint }
            throw error
        }
        // Members may link only to meetings they can see (their calendars, their invitations).
        let events = try await store.meetingEvents(meetingID: params.meeting, exceptEventID: nil, ownerID: recording.ownerID)
        let visible = caller.isAdmin ? events : events.filter { $0.ownerRelation != .unrelated }
        guard let event = nearest(visible, to: recording) else {
            if let hint = try await swappedHint(params, caller: caller) { throw hint }
            throw RPCError.notFound("no meeting \(params.meeting) with a mirrored event you can see")
        }
        if params.force != true, let recordedAt = recording.recordedAt,
            let gap = LinkTimeGap(
                recordedAt: recordedAt, duration: recording.duration, meetingStart: event.start, meetingEnd: event.end, policy: linker.policy)
        {
            var message =
                "recording \(recording.id) was made \(LinkTimeGap.describe(gap.recording)), meeting \(params.meeting) is "
                + "\(LinkTimeGap.describe(gap.meeting)), \(gap.distance) apart"
            if try await swappedPairOverlaps(params, caller: caller) {
                message += "; recording \(params.meeting) and meeting \(params.recording) do overlap — did you mean "
                    + "`steno link \(params.meeting) \(params.recording)` (recording first)?"
            }
            throw RPCError.failedPrecondition(message + "; pass --force to link them anyway")
        }
        try await store.saveLink(
            LinkUpdate(
                recordingID: recording.id, state: .linked, method: .manual, isManual: true, eventID: event.eventID,
                actor: actor(caller), action: "linked-by-hand",
                reason: "linked by hand to \"\(event.title)\"" + (params.force == true ? " (forced)" : "")))
        return try await summary(recording.id)
    }

    /// The meeting's event closest in time to the recording (any, when it has no start time).
    func nearest(_ events: [LinkCandidate], to recording: Recording) -> LinkCandidate? {
        guard let recordedAt = recording.recordedAt else { return events.first }
        func distance(_ event: LinkCandidate) -> TimeInterval {
            max(0, event.start.timeIntervalSince(recordedAt), recordedAt.timeIntervalSince(event.end))
        }
        return events.min { distance($0) < distance($1) }
    }

    /// An error saying the ids look swapped, when the recording or the meeting does not exist
    /// but the other way round both do; nil otherwise.
    func swappedHint(_ params: LinkSetParams, caller: Caller) async throws -> RPCError? {
        guard params.recording != params.meeting, let swapped = try await swappedPair(params, caller: caller) else { return nil }
        return RPCError.notFound(
            "\(params.recording) is a meeting and \(params.meeting) a recording, not the other way round: "
                + "did you mean `steno link \(swapped.recording.id) \(params.recording)`? (recording first, then meeting)")
    }

    /// Whether recording `params.meeting` and meeting `params.recording` exist, are the caller's
    /// to link, and overlap in time.
    func swappedPairOverlaps(_ params: LinkSetParams, caller: Caller) async throws -> Bool {
        guard params.recording != params.meeting, let swapped = try await swappedPair(params, caller: caller),
            let recordedAt = swapped.recording.recordedAt
        else { return false }
        return swapped.events.contains {
            LinkTimeGap(
                recordedAt: recordedAt, duration: swapped.recording.duration, meetingStart: $0.start, meetingEnd: $0.end,
                policy: linker.policy) == nil
        }
    }

    /// Recording `params.meeting` and the visible events of meeting `params.recording`, when both
    /// exist for the caller.
    private func swappedPair(_ params: LinkSetParams, caller: Caller) async throws -> (recording: Recording, events: [LinkCandidate])? {
        guard let recording = try? await ownRecording(params.meeting, caller: caller) else { return nil }
        let events = try await store.meetingEvents(meetingID: params.recording, exceptEventID: nil, ownerID: recording.ownerID)
        let visible = caller.isAdmin ? events : events.filter { $0.ownerRelation != .unrelated }
        return visible.isEmpty ? nil : (recording, visible)
    }
}
