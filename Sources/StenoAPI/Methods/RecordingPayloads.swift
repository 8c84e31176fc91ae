import Foundation
import StenoCore

extension StenoMethods {
    // MARK: recordings.*

    /// Recordings the caller may see (members: their own; admins: all), a page at a time.
    public static let recordingsList = RPCMethodDescriptor<RecordingListParams, Page<Recording>>("recordings.list")
    /// One recording with its transcript.
    public static let recordingsGet = RPCMethodDescriptor<RecordingReferenceParams, Recording>("recordings.get")
    /// Queues files or folders of the inbox for ingestion now, ahead of bulk work; returns the job ids.
    public static let recordingsIngest = RPCMethodDescriptor<IngestParams, IngestResult>("recordings.ingest")
    /// Opens a recording's file for anyone who may see the recording: the reply carries the
    /// open, read-only descriptor as `SCM_RIGHTS` ancillary data (``StenoClient/callReceivingDescriptor(_:_:)``).
    public static let recordingsOpen = RPCMethodDescriptor<RecordingReferenceParams, RecordingOpenResult>("recordings.open")
}

/// The result of `recordings.open`; the file's descriptor comes with the reply.
public struct RecordingOpenResult: Codable, Sendable, Hashable {
    public var recording: Int64
    /// The container (`wav`, `mp4`, …) and its media type.
    public var format: String?
    public var contentType: String
    /// Bytes in the file handed over.
    public var size: Int64
    public var duration: Double?
    /// The meeting the recording is bound to, when linked.
    public var meeting: RecordingMeeting?
    /// The file's absolute path, for its owner and admins (others read it through the descriptor).
    public var path: String?
    /// Always `"SCM_RIGHTS"`: the reply's first byte carries the descriptor; a client that
    /// reads with `read(2)` rather than `recvmsg(2)` gets the JSON and the kernel drops it.
    public var descriptor: String

    public init(
        recording: Int64, format: String?, contentType: String, size: Int64, duration: Double?, meeting: RecordingMeeting?, path: String?,
        descriptor: String = "SCM_RIGHTS"
    ) {
        self.recording = recording
        self.format = format
        self.contentType = contentType
        self.size = size
        self.duration = duration
        self.meeting = meeting
        self.path = path
        self.descriptor = descriptor
    }
}

/// Params of `recordings.list`.
public struct RecordingListParams: Codable, Sendable, Hashable {
    /// Only this owner's recordings (name, email or id).
    public var owner: String?
    public var status: RecordingStatus?
    /// Only recordings that carry warnings, when true.
    public var warnings: Bool?
    /// Recorded at or after `from`, before `to`.
    public var from: Date?
    public var to: Date?
    /// The order (default `recorded`); ties go by id.
    public var sort: RecordingSort?
    /// Largest first; without it, the sort's own direction (newest and longest first, ids up).
    public var descending: Bool?
    public var cursor: String?
    public var limit: Int?

    public init(
        owner: String? = nil, status: RecordingStatus? = nil, warnings: Bool? = nil, from: Date? = nil, to: Date? = nil,
        sort: RecordingSort? = nil, descending: Bool? = nil, cursor: String? = nil, limit: Int? = nil
    ) {
        self.sort = sort
        self.descending = descending
        self.owner = owner
        self.status = status
        self.warnings = warnings
        self.from = from
        self.to = to
        self.cursor = cursor
        self.limit = limit
    }
}

/// Names one recording by id.
public struct RecordingReferenceParams: Codable, Sendable, Hashable {
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

/// Params of `recordings.ingest`.
public struct IngestParams: Codable, Sendable, Hashable {
    /// Files or folders inside the daemon's inbox: absolute, or relative to the inbox.
    public var paths: [String]
    public init(paths: [String]) { self.paths = paths }
}

/// The result of `recordings.ingest`: one job per file found.
public struct IngestResult: Codable, Sendable, Hashable {
    /// Inbox-relative path and the id of the job reading it.
    public var jobs: [IngestJob]

    public struct IngestJob: Codable, Sendable, Hashable {
        public var path: String
        public var jobID: Int64
        public init(path: String, jobID: Int64) {
            self.path = path
            self.jobID = jobID
        }
    }

    public init(jobs: [IngestJob]) { self.jobs = jobs }
}
