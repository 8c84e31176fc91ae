import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `links.*` and `recordings.explain`: what each recording is linked to, why, and manual
/// decisions. Members act on the recordings they own; admins on all.
struct LinkMethods: Sendable {
    let store: any CatalogStore & RecordingStore
    let queue: JobQueue
    let linker: RecordingLinker

    func register(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.recordingsExplain, access: .user) { call, params in
            try await methods.explain(params.id, caller: call.caller)
        }
        table.register(StenoMethods.linksList, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            let links = try await methods.store.links(
                state: params.state, visibleTo: RecordingMethods.visibility(of: call.caller),
                afterRecordingID: try params.cursor.map(PageCursor.decode), limit: limit + 1)
            let page = Array(links.prefix(limit))
            return Page(items: page, nextCursor: links.count > limit ? page.last.map { PageCursor.encode($0.recording) } : nil)
        }
        table.register(StenoMethods.linksHistory, access: .user) { call, params in
            _ = try await methods.ownRecording(params.id, caller: call.caller)
            return try await methods.store.linkHistory(recordingID: params.id)
        }
        table.register(StenoMethods.linksSet, access: .user) { call, params in
            try await methods.linkByHand(params, caller: call.caller)
        }
        table.register(StenoMethods.linksRemove, access: .user) { call, params in
            let recording = try await methods.ownRecording(params.id, caller: call.caller)
            let before = try await methods.store.link(recordingID: recording.id)
            // The meeting's cached title, times and attendees stay, so history can say which it was.
            try await methods.store.saveLink(
                LinkUpdate(
                    recordingID: recording.id, state: .unlinked, method: .manual, isManual: true, eventID: nil, keepsCache: true,
                    actor: methods.actor(call.caller), action: "unlinked-by-hand",
                    reason: "unlinked by hand" + (before?.cachedTitle.map { " from \"\($0)\"" } ?? "")))
            return try await methods.summary(recording.id)
        }
        table.register(StenoMethods.linksReset, access: .user) { call, params in
            let recording = try await methods.ownRecording(params.id, caller: call.caller)
            try await methods.linker.reset(recordingID: recording.id, actor: methods.actor(call.caller))
            return try await methods.summary(recording.id)
        }
        table.register(StenoMethods.linksRevalidate, access: .admin) { _, _ in
            let result = try await methods.queue.enqueue(RevalidateLinksJobHandler.draft(priority: JobPriority.interactive))
            return JobEnqueueResult(job: result.job, alreadyLive: !result.isNew)
        }
    }

    /// A recording the caller may act on: their own (admins: any). Others who can see it
    /// through a shared meeting may not change its link nor read the owner's candidates.
    func ownRecording(_ id: Int64, caller: Caller) async throws -> Recording {
        try await Self.ownRecording(id, caller: caller, store: store)
    }

    /// ``ownRecording(_:caller:)`` over any recording store.
    static func ownRecording(_ id: Int64, caller: Caller, store: any RecordingStore) async throws -> Recording {
        let recording = try await store.recording(id: id, visibleTo: RecordingMethods.visibility(of: caller))
        guard caller.isAdmin || (recording.ownerID != nil && recording.ownerID == caller.user?.id) else {
            throw RPCError.notPermitted(
                "recording \(id) belongs to \(recording.ownerName ?? "someone else"); only its owner or an admin may see or change its link")
        }
        return recording
    }

    func actor(_ caller: Caller) -> String {
        Self.actor(caller)
    }

    /// Who a caller is in a link's history.
    static func actor(_ caller: Caller) -> String {
        caller.user?.name ?? "uid \(caller.credentials.uid)"
    }

    func summary(_ recordingID: Int64) async throws -> LinkSummary {
        guard let link = try await store.links(state: nil, visibleTo: nil, afterRecordingID: recordingID - 1, limit: 1).first,
            link.recording == recordingID
        else { throw RPCError.notFound("recording \(recordingID) has no link") }
        return link
    }

    func explain(_ recordingID: Int64, caller: Caller) async throws -> LinkExplanation {
        let recording = try await ownRecording(recordingID, caller: caller)
        guard let decision = try await linker.explain(recordingID: recording.id) else {
            throw RPCError.failedPrecondition(
                "recording \(recording.id) is \(recording.status.rawValue)\(recording.recordedAt == nil ? " and has no start time" : ""); only ready recordings are linked")
        }
        let stored = try? await summary(recording.id)
        return LinkExplanation(
            recording: recording.id, state: decision.state, method: decision.method, meeting: decision.chosen?.candidate.meetingID,
            reason: decision.reason,
            candidates: decision.candidates.map {
                CandidateExplanation(
                    meeting: $0.candidate.meetingID, event: $0.candidate.eventID, title: $0.candidate.title, start: $0.candidate.start,
                    end: $0.candidate.end, score: $0.score, terms: $0.terms, excludedBecause: $0.excludedBecause)
            },
            stored: stored)
    }
}
