import Foundation
import StenoCatalog
import StenoCore

/// Which jobs a member may see: those working on their own things only — syncs of their
/// calendar accounts, ingests of files in their inbox folder, links of their recordings, the
/// deletions they asked for.
/// Jobs of the whole catalog (revalidation, scheduled work) and jobs touching anyone else's
/// things are for admins: payloads name other people's files and recordings, and errors may
/// describe their accounts.
///
/// The owner is read from the payload each time, so jobs enqueued before this rule need no
/// migration. One value serves one request and remembers what it looked up.
actor JobVisibility {
    let store: any CatalogStore & RecordingStore
    /// The member asking.
    let member: User
    private var accountOwners: [Int64: Int64?] = [:]
    private var recordingsVisible: [Int64: Bool] = [:]

    init(store: any CatalogStore & RecordingStore, member: User) {
        self.store = store
        self.member = member
    }

    /// Whether the member may see `job`.
    func allows(_ job: Job) async -> Bool {
        switch job.kind {
        case CalendarSyncJob.name:
            guard let id = (try? CalendarSyncJob.payload(of: job))?.account else { return false }
            return await accountOwner(id) == member.id
        case IngestJob.name:
            guard let paths = try? IngestJobHandler.paths(of: job) else { return false }
            return paths.allSatisfy { InboxPath.ownerFolder(of: $0) == member.name }
        case LinkRecordingJob.name:
            guard let ids = LinkRecordingJobHandler.recordingIDs(of: job), !ids.isEmpty else { return false }
            for id in ids where !(await ownsRecording(id)) { return false }
            return true
        case RecordingDeletionJob.name:
            // The recordings are gone once it ends: who asked is in the payload.
            return (try? RecordingDeletionJob.payload(of: job))?.requestedBy == member.name
        default:
            return false
        }
    }

    private func accountOwner(_ id: Int64) async -> Int64? {
        if let known = accountOwners[id] { return known }
        let owner = try? await store.account(id: id).ownerID
        accountOwners[id] = owner
        return owner
    }

    private func ownsRecording(_ id: Int64) async -> Bool {
        if let known = recordingsVisible[id] { return known }
        let owns = (try? await store.recording(id: id, visibleTo: nil).ownerID) == member.id
        recordingsVisible[id] = owns
        return owns
    }
}
