import StenoCore

extension StenoMethods {
    /// Deletes recordings (their owner or an admin): marks them and queues the job that removes
    /// their files (with `files`) and then their rows; returns at once with the job to follow.
    public static let recordingsDelete = RPCMethodDescriptor<RecordingDeleteParams, RecordingDeleteResult>("recordings.delete")
    /// Forgets the content hashes of deleted recordings (admins, or whoever deleted them), so
    /// the same bytes are catalogued again when they next arrive.
    public static let recordingsForgetContent = RPCMethodDescriptor<ForgetContentParams, ForgetContentResult>("recordings.forgetContent")
}

/// Params of `recordings.delete`.
public struct RecordingDeleteParams: Codable, Sendable, Hashable {
    /// The recordings to delete: all of them, or none when any may not be deleted.
    public var ids: [Int64]
    /// Also remove the recordings' files from the inbox (default false: the files stay, and
    /// their content is remembered so they are not catalogued again).
    public var files: Bool?
    /// Do not remember the content (default false): the same bytes are catalogued anew when
    /// they next arrive — a file left in the inbox, at the next rescan.
    public var forgetContent: Bool?

    public init(ids: [Int64], files: Bool? = nil, forgetContent: Bool? = nil) {
        self.ids = ids
        self.files = files
        self.forgetContent = forgetContent
    }
}

/// The result of `recordings.delete`.
public struct RecordingDeleteResult: Codable, Sendable, Hashable {
    /// The recordings marked for deletion, ascending.
    public var recordings: [Int64]
    /// The `recordings.delete` job that finishes them (`system.subscribe` follows it).
    public var job: Int64

    public init(recordings: [Int64], job: Int64) {
        self.recordings = recordings
        self.job = job
    }
}

/// Params of `recordings.forgetContent`.
public struct ForgetContentParams: Codable, Sendable, Hashable {
    /// Hex SHA-256 content hashes, as a deleted recording's file was hashed.
    public var contentHashes: [String]

    public init(contentHashes: [String]) { self.contentHashes = contentHashes }
}

/// The result of `recordings.forgetContent`.
public struct ForgetContentResult: Codable, Sendable, Hashable {
    /// The hashes that were remembered and are forgotten now; the others were not remembered.
    public var forgotten: [String]

    public init(forgotten: [String]) { self.forgotten = forgotten }
}

extension StenoMethods {
    /// Deletes the recordings whose files have been gone from the inbox for more than a number
    /// of days (admins); with `dryRun`, only lists them.
    public static let recordingsPurge = RPCMethodDescriptor<RecordingPurgeParams, RecordingPurgeResult>("recordings.purge")
}

/// Params of `recordings.purge`.
public struct RecordingPurgeParams: Codable, Sendable, Hashable {
    /// Must be true: recordings `missing` (no file of theirs left in the inbox) are purged.
    public var missing: Bool
    /// Missing for more than this many days (at least 1).
    public var olderThanDays: Int
    /// List what would go, and delete nothing.
    public var dryRun: Bool?

    public init(missing: Bool = true, olderThanDays: Int, dryRun: Bool? = nil) {
        self.missing = missing
        self.olderThanDays = olderThanDays
        self.dryRun = dryRun
    }
}

/// The result of `recordings.purge`.
public struct RecordingPurgeResult: Codable, Sendable, Hashable {
    /// The recordings marked for deletion (with `dryRun`: those that would be), ascending.
    public var recordings: [Int64]
    /// The `recordings.delete` jobs deleting them (none with `dryRun`).
    public var jobs: [Int64]

    public init(recordings: [Int64], jobs: [Int64]) {
        self.recordings = recordings
        self.jobs = jobs
    }
}
