import Foundation
import StenoCore

/// Deleting recordings, in three steps a crash may part: ``markForDeletion(_:job:)`` marks the
/// recordings (and queues the job that finishes them, in the same transaction), the job removes
/// their files from the inbox when asked, then ``finishDeletions(_:)`` deletes their rows. A
/// recording is therefore either whole (perhaps marked) or gone with what was asked of it.
public protocol RecordingDeletionStore: Sendable {
    /// Marks the request's recordings that exist and are not held (a mark already there is
    /// kept as it was), remembers their content hashes when asked, logs the request's access
    /// for each one marked, and queues `job` (when any recording was marked) — one
    /// transaction, so a deletion is logged exactly when it is decided. Without a job the caller finishes the
    /// deletions itself; were it to stop, the deletion resumed at start-up finishes them.
    func markForDeletion(_ request: DeletionRequest, job: JobDraft?) async throws -> MarkedDeletion
    /// Marked recordings (only those of `ids`, when given), ascending by id from `afterID`,
    /// with every path each was seen at.
    func pendingDeletions(ids: [Int64]?, afterID: Int64, limit: Int) async throws -> [PendingDeletion]
    /// Deletes the marked recordings among `ids` with everything that hangs on them (paths,
    /// link, attendees cached for it, link history, search entries); returns how many went.
    /// An id that is not marked is left alone: only a mark makes a recording go.
    func finishDeletions(_ ids: [Int64]) async throws -> Int
    /// Recordings `missing` (no file of theirs left in the inbox) since before `cutoff`, neither
    /// held nor marked yet, ascending by id, at most `limit`.
    func missingRecordings(before cutoff: Date, limit: Int) async throws -> [Int64]
    /// The remembered deletion of each of `hashes` that has one.
    func deletedContents(_ hashes: [String]) async throws -> [String: DeletedContent]
    /// Forgets remembered content hashes, so the same bytes are catalogued again when they
    /// next arrive; returns the ones that were remembered.
    func forgetDeletedContents(_ hashes: [String]) async throws -> [String]
}

/// Which recordings to delete, on whose word.
public struct DeletionRequest: Sendable, Hashable {
    public var recordingIDs: [Int64]
    /// A user name, or `retention` for the nightly removal.
    public var requestedBy: String
    /// Whether the job removes the recordings' files from the inbox too.
    public var withFiles: Bool
    /// Whether the recordings' content hashes are remembered, so the same bytes dropped again
    /// are not catalogued again.
    public var remembersContent: Bool
    /// The absolute folder the files are moved to instead of being removed (with `withFiles`).
    public var archiveDirectory: String?
    /// What the access log says of each recording marked (its actor: `requestedBy`); nothing
    /// when nil.
    public var access: Access?
    public var now: Date

    /// An access log entry of a deletion.
    public struct Access: Sendable, Hashable {
        public var action: AccessEntry.Action
        /// The caller's Unix uid; nil for the nightly jobs.
        public var uid: UInt32?
        public var detail: String?

        public init(_ action: AccessEntry.Action, uid: UInt32?, detail: String? = nil) {
            self.action = action
            self.uid = uid
            self.detail = detail
        }
    }

    /// The access log entry of the recordings `ids` this request marked.
    public func accessDraft(marked ids: [Int64]) -> AccessDraft? {
        access.map { AccessDraft(action: $0.action, recordingIDs: ids, actor: requestedBy, uid: $0.uid, detail: $0.detail, at: now) }
    }

    public init(
        recordingIDs: [Int64], requestedBy: String, withFiles: Bool, remembersContent: Bool = true, archiveDirectory: String? = nil,
        access: Access? = nil, now: Date = Date()
    ) {
        self.access = access
        self.recordingIDs = recordingIDs
        self.requestedBy = requestedBy
        self.withFiles = withFiles
        self.remembersContent = remembersContent
        self.archiveDirectory = archiveDirectory
        self.now = now
    }
}

/// What ``RecordingDeletionStore/markForDeletion(_:job:)`` marked, and the job that finishes it.
public struct MarkedDeletion: Sendable, Hashable {
    /// The request's recordings that exist and are not held, ascending.
    public var recordingIDs: [Int64]
    /// The job queued (or the live job holding its unique key); nil when nothing was marked.
    public var job: Job?

    public init(recordingIDs: [Int64], job: Job?) {
        self.recordingIDs = recordingIDs
        self.job = job
    }
}

/// A recording marked for deletion and not gone yet.
public struct PendingDeletion: Sendable, Hashable {
    public var recordingID: Int64
    public var withFiles: Bool
    /// Where its files are moved instead of being removed.
    public var archiveDirectory: String?
    /// Every path of the recording, present or not, relative to the inbox.
    public var paths: [String]

    public init(recordingID: Int64, withFiles: Bool, archiveDirectory: String? = nil, paths: [String]) {
        self.recordingID = recordingID
        self.withFiles = withFiles
        self.archiveDirectory = archiveDirectory
        self.paths = paths
    }
}

/// The remembered deletion of a recording's content: when, and on whose word (no title, no
/// name of anyone in it).
public struct DeletedContent: Sendable, Hashable {
    public var contentHash: String
    public var deletedAt: Date
    public var deletedBy: String

    public init(contentHash: String, deletedAt: Date, deletedBy: String) {
        self.contentHash = contentHash
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
    }

    /// Why a file of this content is not catalogued, with the way to catalogue it again.
    public var ignoredReason: String {
        "its content was deleted from the catalog on \(UTCDay.text(deletedAt)) by \(deletedBy); "
            + "to catalogue it again: steno recordings forget-content \(contentHash)"
    }
}
