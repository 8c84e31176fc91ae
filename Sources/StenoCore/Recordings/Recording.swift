import Foundation

/// One recording in the catalog, identified by its content: the same bytes dropped twice
/// are one recording with two paths.
public struct Recording: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// Hex SHA-256 of the file; nil when the file could not be read at all.
    public var contentHash: String?
    /// The owning user's id and name, if known.
    public var ownerID: Int64?
    public var ownerName: String?
    /// Where the file is (and was), relative to the inbox.
    public var paths: [RecordingPath]
    /// File size in bytes.
    public var size: Int64
    /// Container format (`wav`, `mp4`, …) and codec (`aac`, `opus`, …).
    public var format: String?
    public var codec: String?
    /// Length in seconds.
    public var duration: Double?
    public var sampleRate: Int?
    public var channels: Int?
    /// When the recording started, and where that came from.
    public var recordedAt: Date?
    public var recordedAtSource: RecordedAtSource?
    /// Title from the sidecar or the container's tags.
    public var title: String?
    /// Identity hints from a sidecar, used to link by identity.
    public var iCalUIDHint: String?
    public var eventIDHint: String?
    public var providerHint: String?
    /// Transcript text, when a sidecar or transcript file carried one (left out of lists).
    public var transcript: String?
    public var status: RecordingStatus
    /// Why the recording is `failed`.
    public var failureReason: String?
    /// Readings a person should see that did not stop the recording being catalogued
    /// ("truncated: header says 11.2 s, data holds 6.7 s"), one sentence each.
    public var warnings: [String]
    /// The meeting its link binds it to, in `recordings.get` only (left out of lists).
    public var meeting: RecordingMeeting?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: Int64, contentHash: String?, ownerID: Int64? = nil, ownerName: String? = nil, paths: [RecordingPath] = [],
        size: Int64 = 0, format: String? = nil, codec: String? = nil, duration: Double? = nil, sampleRate: Int? = nil,
        channels: Int? = nil, recordedAt: Date? = nil, recordedAtSource: RecordedAtSource? = nil, title: String? = nil,
        iCalUIDHint: String? = nil, eventIDHint: String? = nil, providerHint: String? = nil, transcript: String? = nil,
        status: RecordingStatus, failureReason: String? = nil, createdAt: Date, updatedAt: Date, warnings: [String] = []
    ) {
        self.id = id
        self.contentHash = contentHash
        self.ownerID = ownerID
        self.ownerName = ownerName
        self.paths = paths
        self.size = size
        self.format = format
        self.codec = codec
        self.duration = duration
        self.sampleRate = sampleRate
        self.channels = channels
        self.recordedAt = recordedAt
        self.recordedAtSource = recordedAtSource
        self.title = title
        self.iCalUIDHint = iCalUIDHint
        self.eventIDHint = eventIDHint
        self.providerHint = providerHint
        self.transcript = transcript
        self.status = status
        self.failureReason = failureReason
        self.warnings = warnings
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Where a recording's file is, relative to the inbox.
public struct RecordingPath: Sendable, Hashable, Codable {
    public var path: String
    /// False once the file is gone from this path.
    public var isPresent: Bool

    public init(path: String, isPresent: Bool) {
        self.path = path
        self.isPresent = isPresent
    }

    /// The order a recording's paths are listed in: present ones first, then by the bytes of
    /// the path (as SQLite's and PostgreSQL's "C" collation compare them).
    public static func presentFirstThenByBytes(_ left: RecordingPath, _ right: RecordingPath) -> Bool {
        if left.isPresent != right.isPresent { return left.isPresent }
        return left.path.utf8.lexicographicallyPrecedes(right.path.utf8)
    }
}

/// The life of a recording in the catalog.
public enum RecordingStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Seen, not yet read.
    case pending
    /// Read and catalogued.
    case ready
    /// Could not be read; `failureReason` says why.
    case failed
    /// Its file is gone from every path; the catalog keeps it.
    case missing
}

/// Where a recording's start time came from, most trusted first.
public enum RecordedAtSource: String, Sendable, Hashable, Codable, CaseIterable {
    case sidecar
    case container
    case fileName = "file-name"
    case mtime
}
