import Foundation
import StenoCore

/// `link`: links recordings after they were ingested.
enum LinkRecordingJob: JobKind {
    static let name = "link"

    /// `{"recording": ID}` for one recording, or `{"recordings": [ID, …]}` for files ingested
    /// together.
    struct Payload: Codable, Sendable, Hashable {
        /// The one recording of a job for one.
        var recording: Int64?
        /// The recordings of a job for many.
        var recordings: [Int64]?

        /// The payload naming `recordingIDs`: the one-recording form for one.
        init(recordingIDs: [Int64]) {
            if recordingIDs.count == 1 {
                recording = recordingIDs.first
            } else {
                recordings = recordingIDs
            }
        }

        /// The recordings named; nil when the payload names none.
        var recordingIDs: [Int64]? {
            if let recording { return [recording] }
            guard let recordings, !recordings.isEmpty else { return nil }
            return recordings
        }
    }

    /// What one pass of the batch linker did for a job: how many recordings the job named,
    /// how many jobs were linked together, and how many links that pass changed.
    struct Result: Codable, Sendable, Hashable {
        var recordings: Int
        var batch: Int
        var changedInBatch: Int
    }
}

/// `links.after-sync`: after a sync changed events, links recordings that now have a meeting
/// and revalidates links to the changed meetings.
enum LinksAfterSyncJob: JobKind {
    static let name = "links.after-sync"

    /// `{"since": ms}`: events changed since then (milliseconds since 1970).
    struct Payload: Codable, Sendable, Hashable {
        var since: Int64
    }

    /// Counts by revalidation action and link state, e.g. `{"kept": 3, "linked": 1}`.
    typealias Result = [String: Int64]
}

/// `links.revalidate`: the nightly re-check of every link, and `steno revalidate`.
enum RevalidateLinksJob: JobKind {
    static let name = "links.revalidate"
    typealias Payload = NoJobPayload
    /// Counts by revalidation action, and `newly-linked`.
    typealias Result = [String: Int64]
}
