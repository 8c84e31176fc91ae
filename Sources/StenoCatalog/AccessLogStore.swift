import Foundation
import StenoCore

/// The access log: written as things are done to recordings, read by `steno audit`, pruned
/// after `[retention] audit_days`.
public protocol AccessLogStore: Sendable {
    /// Writes one entry per recording of `draft` (one without a recording when its ids are
    /// nil; none when they are empty), each with the recording's owner as the catalog has it now.
    func logAccess(_ draft: AccessDraft) async throws
    /// Entries newest first, matching every filter of `query`.
    func accessLog(_ query: AccessLogQuery) async throws -> [AccessEntry]
    /// Removes the entries older than `cutoff`; returns how many went.
    func pruneAccessLog(before cutoff: Date) async throws -> Int
}

/// What to log: one action by one actor, on some recordings.
public struct AccessDraft: Sendable, Hashable {
    public var action: AccessEntry.Action
    /// Nil for an action on no recording (a content hash forgotten).
    public var recordingIDs: [Int64]?
    public var actor: String
    public var uid: UInt32?
    public var detail: String?
    public var at: Date

    public init(action: AccessEntry.Action, recordingIDs: [Int64]?, actor: String, uid: UInt32?, detail: String? = nil, at: Date = Date()) {
        self.action = action
        self.recordingIDs = recordingIDs
        self.actor = actor
        self.uid = uid
        self.detail = detail
        self.at = at
    }
}

/// Which entries to read.
public struct AccessLogQuery: Sendable, Hashable {
    public var recordingID: Int64?
    /// Done by this actor (a user name).
    public var actor: String?
    /// To recordings this user owned.
    public var owner: String?
    public var since: Date?
    /// Older than this entry (the page before).
    public var beforeID: Int64?
    public var limit: Int

    public init(recordingID: Int64? = nil, actor: String? = nil, owner: String? = nil, since: Date? = nil, beforeID: Int64? = nil, limit: Int = 100) {
        self.recordingID = recordingID
        self.actor = actor
        self.owner = owner
        self.since = since
        self.beforeID = beforeID
        self.limit = limit
    }
}
