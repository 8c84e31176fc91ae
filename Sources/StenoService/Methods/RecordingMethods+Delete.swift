import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

extension RecordingMethods {
    /// The most recordings one `recordings.delete` takes (a retention run deletes more, in
    /// jobs of its own).
    static let deletionLimit = 10_000

    /// `recordings.delete` and `recordings.forgetContent`.
    func registerDeletion(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.recordingsDelete, access: .user) { call, params in
            try await methods.delete(params, call: call)
        }
        table.register(StenoMethods.recordingsForgetContent, access: .user) { call, params in
            try await methods.forgetContent(params.contentHashes, call: call)
        }
        table.register(StenoMethods.recordingsPurge, access: .admin) { call, params in
            try await methods.purge(params, call: call)
        }
    }

    /// Checks every recording first (all are deleted, or none), then marks them and queues
    /// the job that finishes them, in one transaction.
    func delete(_ params: RecordingDeleteParams, call: RPCCall) async throws -> RecordingDeleteResult {
        let ids = Array(Set(params.ids)).sorted()
        guard !ids.isEmpty else { throw RPCError.invalidParams("give at least one recording id to delete") }
        guard ids.count <= Self.deletionLimit else {
            throw RPCError.invalidParams("at most \(Self.deletionLimit) recordings at a time; \(ids.count) given")
        }
        let withFiles = params.files ?? false
        for id in ids {
            try await checkDeletable(id, withFiles: withFiles, caller: call.caller)
        }
        if let hold = try await store.holds(ids: ids).first { throw RPCError.failedPrecondition(hold.refusal) }
        let requestedBy = Self.actor(call.caller)
        let draft = try RecordingDeletionJob.draft(recordings: ids, requestedBy: requestedBy)
        let marked = try await store.markForDeletion(
            DeletionRequest(
                recordingIDs: ids, requestedBy: requestedBy, withFiles: withFiles, remembersContent: !(params.forgetContent ?? false),
                access: .init(.delete, uid: call.caller.credentials.uid, detail: withFiles ? "with files" : nil)),
            job: draft)
        guard let job = marked.job else {
            throw RPCError.notFound("none of the recordings \(ids.map(String.init).joined(separator: ", ")) exists any more")
        }
        queue.wake()
        call.logger.notice(
            "recordings marked for deletion",
            metadata: [
                "recordings": "\(marked.recordingIDs.count)", "files": "\(withFiles)", "by": "\(requestedBy)",
                "uid": "\(call.caller.credentials.uid)", "job": "\(job.id)",
            ])
        return RecordingDeleteResult(recordings: marked.recordingIDs, job: job.id)
    }

    /// Throws why the caller may not delete recording `id`: members delete their own, admins
    /// any; a recording whose file could not be hashed cannot be recognised again, so its file
    /// must go with it.
    private func checkDeletable(_ id: Int64, withFiles: Bool, caller: Caller) async throws {
        let recording: Recording
        do {
            recording = try await store.recording(id: id, visibleTo: Self.visibility(of: caller))
        } catch StoreError.notFound {
            if caller.isAdmin { throw RPCError.notFound("no recording \(id)") }
            // The same answer for a recording that does not exist: members do not learn which do.
            throw RPCError.notPermitted("recording \(id) is not yours: only its owner or an admin may delete it")
        }
        if !caller.isAdmin, recording.ownerID == nil || recording.ownerID != caller.user?.id {
            throw RPCError.notPermitted(
                "recording \(id) is \(recording.ownerName.map { "\($0)'s" } ?? "nobody's"): only its owner or an admin may delete it")
        }
        if recording.contentHash == nil, !withFiles, recording.paths.contains(where: \.isPresent) {
            throw RPCError.failedPrecondition(
                "recording \(id)'s file could not be read, so Steno would not know it again and would catalogue it anew: "
                    + "delete it with its file (--file), or remove the file first")
        }
    }

    /// `recordings.forgetContent`: admins forget any remembered content, members what they deleted.
    func forgetContent(_ hashes: [String], call: RPCCall) async throws -> ForgetContentResult {
        let hashes = Array(Set(hashes.map { $0.lowercased() })).sorted()
        guard !hashes.isEmpty else { throw RPCError.invalidParams("give at least one content hash") }
        if let bad = hashes.first(where: { $0.count != 64 || !$0.allSatisfy(\.isHexDigit) }) {
            throw RPCError.invalidParams("\(bad) is not a content hash (64 hex digits, as the ingest that ignored the file names it)")
        }
        if !call.caller.isAdmin {
            let actor = Self.actor(call.caller)
            if let other = try await store.deletedContents(hashes).values.first(where: { $0.deletedBy != actor }) {
                throw RPCError.notPermitted("content \(other.contentHash) was deleted by \(other.deletedBy): only they or an admin may forget it")
            }
        }
        let forgotten = try await store.forgetDeletedContents(hashes)
        for hash in forgotten {
            try await store.logAccess(
                AccessDraft(action: .forgetContent, recordingIDs: nil, actor: Self.actor(call.caller), uid: call.caller.credentials.uid, detail: hash))
        }
        call.logger.notice("deleted content forgotten", metadata: ["hashes": "\(forgotten.count)", "by": "\(Self.actor(call.caller))"])
        return ForgetContentResult(forgotten: forgotten)
    }

    /// `recordings.purge`: the recordings missing for more than `olderThanDays` days, marked and
    /// deleted (or, with `dryRun`, listed).
    func purge(_ params: RecordingPurgeParams, call: RPCCall) async throws -> RecordingPurgeResult {
        guard params.missing else { throw RPCError.invalidParams("only missing recordings are purged: pass missing: true (steno recordings purge --missing)") }
        guard params.olderThanDays >= 1 else { throw RPCError.invalidParams("olderThanDays must be at least 1, got \(params.olderThanDays)") }
        let purge = MissingRecordingPurge(store: store)
        if params.dryRun == true {
            return RecordingPurgeResult(
                recordings: try await purge.candidates(olderThanDays: params.olderThanDays, now: Date(), limit: Self.deletionLimit), jobs: [])
        }
        let marked = try await purge.mark(
            olderThanDays: params.olderThanDays, requestedBy: Self.actor(call.caller), uid: call.caller.credentials.uid, now: Date())
        if !marked.jobs.isEmpty { queue.wake() }
        call.logger.notice(
            "missing recordings marked for deletion",
            metadata: ["recordings": "\(marked.recordings.count)", "olderThanDays": "\(params.olderThanDays)", "uid": "\(call.caller.credentials.uid)"])
        return RecordingPurgeResult(recordings: marked.recordings, jobs: marked.jobs)
    }

    /// Who a deletion is recorded as: the caller's user name, or their uid.
    static func actor(_ caller: Caller) -> String {
        caller.user?.name ?? "uid \(caller.credentials.uid)"
    }
}
