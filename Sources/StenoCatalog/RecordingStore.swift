import Foundation
import StenoCore

/// Recordings and the inbox paths they live at.
public protocol RecordingStore: Sendable {
    /// What was last recorded for a path, so an unchanged file is not hashed again.
    func pathState(_ path: String) async throws -> PathState?
    /// What was last recorded for each of several paths, in one read; unknown paths are absent.
    func pathStates(_ paths: [String]) async throws -> [String: PathState]
    /// Every path believed present, for a rescan to find files that vanished unnoticed.
    func presentPaths() async throws -> [String: PathState]
    /// Stores the outcome of reading the file at a path, in one transaction: the same
    /// content seen before gains the path; new content becomes a new recording.
    func recordIngest(_ ingest: IngestRecord) async throws -> Recording
    /// The file at `path` is gone; its recording becomes `missing` when no path remains.
    func markPathGone(_ path: String, now: Date) async throws -> Recording?
    /// Recordings matching a query, in its order.
    func recordings(_ query: RecordingQuery) async throws -> [Recording]
    /// One recording, with its transcript. Throws `.notFound`, also when not visible.
    func recording(id: Int64, visibleTo userID: Int64?) async throws -> Recording
}

extension RecordingStore {
    /// Looks the paths up one by one (the default for stores without a faster way).
    public func pathStates(_ paths: [String]) async throws -> [String: PathState] {
        var states: [String: PathState] = [:]
        for path in paths {
            if let state = try await pathState(path) { states[path] = state }
        }
        return states
    }
}

/// A path's last known state.
public struct PathState: Sendable, Hashable {
    public var recordingID: Int64
    public var size: Int64
    /// Modification time in milliseconds since 1970.
    public var modifiedMilliseconds: Int64
    public var isPresent: Bool

    public init(recordingID: Int64, size: Int64, modifiedMilliseconds: Int64, isPresent: Bool) {
        self.recordingID = recordingID
        self.size = size
        self.modifiedMilliseconds = modifiedMilliseconds
        self.isPresent = isPresent
    }
}

/// What reading one file produced.
public struct IngestRecord: Sendable, Hashable {
    /// The path relative to the inbox.
    public var path: String
    public var size: Int64
    public var modified: Date
    /// Hex SHA-256; nil when the file could not be read.
    public var contentHash: String?
    public var ownerID: Int64?
    /// Metadata when the file was understood; the reason when not.
    public var outcome: Outcome
    public var now: Date

    public enum Outcome: Sendable, Hashable {
        case ready(RecordingMetadata)
        case failed(reason: String)
    }

    public init(path: String, size: Int64, modified: Date, contentHash: String?, ownerID: Int64?, outcome: Outcome, now: Date = Date()) {
        self.path = path
        self.size = size
        self.modified = modified
        self.contentHash = contentHash
        self.ownerID = ownerID
        self.outcome = outcome
        self.now = now
    }
}

/// The catalogued facts of a readable recording.
public struct RecordingMetadata: Sendable, Hashable {
    public var format: String
    public var codec: String
    public var duration: Double
    public var sampleRate: Int?
    public var channels: Int?
    public var recordedAt: Date?
    public var recordedAtSource: RecordedAtSource?
    public var title: String?
    public var iCalUIDHint: String?
    public var eventIDHint: String?
    public var providerHint: String?
    /// The sidecar as JSON text, unknown keys included.
    public var sidecarJSON: String?
    public var transcript: String?
    /// Readings a person should see that did not stop the recording being catalogued
    /// (a file cut short, a sidecar whose length disagrees), one sentence each.
    public var warnings: [String]

    public init(
        format: String, codec: String, duration: Double, sampleRate: Int? = nil, channels: Int? = nil,
        recordedAt: Date? = nil, recordedAtSource: RecordedAtSource? = nil, title: String? = nil,
        iCalUIDHint: String? = nil, eventIDHint: String? = nil, providerHint: String? = nil,
        sidecarJSON: String? = nil, transcript: String? = nil, warnings: [String] = []
    ) {
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
        self.sidecarJSON = sidecarJSON
        self.transcript = transcript
        self.warnings = warnings
    }
}

/// Filters of a recordings list.
public struct RecordingQuery: Sendable, Hashable {
    public var ownerID: Int64?
    public var status: RecordingStatus?
    /// Recorded at or after / before.
    public var from: Date?
    public var to: Date?
    /// Where a page in id order continues (``RecordingOrder/byID``).
    public var afterID: Int64?
    /// The listing's order; pages in another than ``RecordingOrder/byID`` continue after `after`.
    public var order: RecordingOrder
    public var after: RecordingPosition?
    public var limit: Int
    /// Only what this user may see; nil for an admin (everything).
    public var visibleTo: Int64?
    /// Only recordings that carry warnings.
    public var withWarnings: Bool

    public init(
        ownerID: Int64? = nil, status: RecordingStatus? = nil, from: Date? = nil, to: Date? = nil,
        afterID: Int64? = nil, order: RecordingOrder = .byID, after: RecordingPosition? = nil, limit: Int = 100,
        visibleTo: Int64? = nil, withWarnings: Bool = false
    ) {
        self.order = order
        self.after = after
        self.ownerID = ownerID
        self.status = status
        self.from = from
        self.to = to
        self.afterID = afterID
        self.limit = limit
        self.visibleTo = visibleTo
        self.withWarnings = withWarnings
    }

    /// Whether a range of start times is asked for (which leaves out recordings without one).
    package var hasRange: Bool { from != nil || to != nil }
}
