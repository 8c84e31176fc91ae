import Foundation
import StenoCore

extension StenoMethods {
    /// The access log, newest first: admins read all of it, members the entries about their
    /// own recordings.
    public static let auditList = RPCMethodDescriptor<AuditListParams, Page<AccessEntry>>("audit.list")
}

/// Params of `audit.list`; every filter is optional.
public struct AuditListParams: Codable, Sendable, Hashable {
    /// About this recording.
    public var recording: Int64?
    /// Done by this user (a user name, or `retention`).
    public var user: String?
    /// On or after this instant.
    public var since: Date?
    /// The `nextCursor` of the previous page.
    public var cursor: String?
    /// Entries per page (default 100, at most 1,000).
    public var limit: Int?

    public init(recording: Int64? = nil, user: String? = nil, since: Date? = nil, cursor: String? = nil, limit: Int? = nil) {
        self.recording = recording
        self.user = user
        self.since = since
        self.cursor = cursor
        self.limit = limit
    }
}
