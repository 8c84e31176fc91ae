import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

extension RecordingMethods {
    /// `recordings.open`: a recording's file, opened by the daemon for whoever may see the
    /// recording (the rules of every listing) and handed over as a descriptor on the reply.
    func registerOpen(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.recordingsOpen, access: .user) { call, params in
            try await methods.open(params.id, call: call)
        }
    }

    func open(_ id: Int64, call: RPCCall) async throws -> RecordingOpenResult {
        let recording: Recording
        do {
            recording = try await store.recording(id: id, visibleTo: Self.visibility(of: call.caller))
        } catch StoreError.notFound {
            // The same answer for a recording that does not exist: members do not learn which do.
            throw RPCError.notPermitted(
                "recording \(id) is not one you may hear: it is neither yours nor linked to a meeting you were part of")
        }
        let file: RecordingFile
        do {
            file = try await RecordingFile.open(recording, inbox: inbox, store: store)
        } catch let refusal as RecordingFile.Refusal {
            call.logger.warning(
                "a recording's file cannot be handed out: \(refusal)", metadata: ["recording": "\(id)", "uid": "\(call.caller.credentials.uid)"])
            if case .changed(let path, _) = refusal {
                _ = try await queue.enqueue(IngestJobHandler.draft(path: path, priority: JobPriority.interactive))
            }
            throw RPCError.failedPrecondition(refusal.description)
        }
        guard call.attach(file) else {
            throw RPCError.failedPrecondition("recordings.open hands a file descriptor over the Unix socket; call it alone, not in a batch")
        }
        try await store.logAccess(AccessDraft(action: .open, recordingIDs: [id], actor: Self.actor(call.caller), uid: call.caller.credentials.uid))
        let meeting = try await store.link(recordingID: recording.id).flatMap(RecordingMeeting.init)
        let isOwnerOrAdmin = call.caller.isAdmin || (recording.ownerID != nil && recording.ownerID == call.caller.user?.id)
        call.logger.info("recording opened", metadata: ["recording": "\(id)", "uid": "\(call.caller.credentials.uid)", "path": "\(file.path)"])
        return RecordingOpenResult(
            recording: recording.id, format: recording.format, contentType: RecordingFile.contentType(format: recording.format),
            size: file.size, duration: recording.duration, meeting: meeting, path: isOwnerOrAdmin ? inbox.absolute(file.path) : nil)
    }
}
