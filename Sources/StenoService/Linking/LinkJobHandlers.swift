import Foundation
import StenoCatalog
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
    /// how many jobs were linked together, how many links that pass changed, and how each of
    /// the job's recordings stands after it (`"links": {"12": "linked", "13": "unlinked"}`), so
    /// `steno ingest --wait` tells how its own files ended, not the batch's.
    struct Result: Codable, Sendable, Hashable {
        var recordings: Int
        var batch: Int
        var changedInBatch: Int
        /// Link state by recording id (as text: a JSON object's keys); a recording without a
        /// link (gone meanwhile) is left out.
        var links: [String: LinkState]?
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

/// Runs `link` jobs: files changed one by one queue a job each, and one pass of the batch
/// linker reads each owner's candidates once for all the recordings claimed together.
struct LinkRecordingJobHandler: JobHandler {
    let linker: RecordingLinker

    /// Jobs linked together.
    var maxBatchSize: Int { 64 }

    /// The job for one recording (one live job per recording), or for many (one job).
    static func draft(recordingIDs: [Int64], priority: Int = JobPriority.normal) throws -> JobDraft {
        let uniqueKey = recordingIDs.count == 1 ? recordingIDs.first.map { "link:\($0)" } : nil
        return try LinkRecordingJob.draft(.init(recordingIDs: recordingIDs), priority: priority, uniqueKey: uniqueKey)
    }

    /// The recordings a job names; nil when its payload names none.
    static func recordingIDs(of job: Job) -> [Int64]? {
        (try? LinkRecordingJob.payload(of: job))?.recordingIDs
    }

    /// Links the claimed jobs' recordings in one pass of the batch linker (manual links are
    /// left alone); each job succeeds with its count of recordings, the pass's count of
    /// changed links, and its recordings' link states read after the pass. A payload naming no
    /// recording fails its own job only.
    func run(_ attempts: [JobAttempt<LinkRecordingJob>], context: JobContext) async throws -> [JobOutcome<LinkRecordingJob.Result>] {
        let ids = attempts.map(\.payload.recordingIDs)
        let all = Array(Set(ids.compactMap { $0 }.joined())).sorted()
        let changed = try await linker.link(recordingIDs: all) {
            await context.reportProgress($0)
        }.values.reduce(0, +)
        var states: [Int64: LinkState] = [:]
        for batch in RecordingLinker.batches(all) {
            for (id, link) in try await linker.store.links(recordingIDs: batch) { states[id] = link.state }
        }
        return zip(attempts, ids).map { attempt, ids in
            guard let ids else {
                return .failed(JobError.permanent("the link payload names no \"recording\" or \"recordings\": \(attempt.job.payload)"))
            }
            let links = Dictionary(ids.compactMap { id in states[id].map { (String(id), $0) } }) { first, _ in first }
            return .succeeded(LinkRecordingJob.Result(recordings: ids.count, batch: attempts.count, changedInBatch: changed, links: links))
        }
    }
}

/// Runs `links.after-sync` jobs.
struct LinksAfterSyncJobHandler: JobHandler {
    let linker: RecordingLinker
    let store: any CatalogStore

    /// The job for events changed since `since`.
    static func draft(since: Date) throws -> JobDraft {
        try LinksAfterSyncJob.draft(.init(since: Int64(since.timeIntervalSince1970 * 1000)))
    }

    func run(_ attempts: [JobAttempt<LinksAfterSyncJob>], context: JobContext) async throws -> [JobOutcome<LinksAfterSyncJob.Result>] {
        await attempts.eachAttempt { attempt in
            .succeeded(try await relink(since: Date(timeIntervalSince1970: Double(attempt.payload.since) / 1000)))
        }
    }

    /// Revalidates the links touched by events changed since `since`, and links the unsettled
    /// recordings near them; returns counts by action and state.
    func relink(since: Date) async throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        let touched = try await store.linksTouchedByEvents(changedSince: since)
        for (action, count) in try await linker.revalidate(recordingIDs: touched) { counts[action.rawValue, default: 0] += Int64(count) }
        if let span = try await store.changedEventSpan(since: since) {
            let window = DateInterval(
                start: span.start.addingTimeInterval(-linker.policy.tolerance - 86_400), end: span.end.addingTimeInterval(linker.policy.tolerance))
            let unsettled = try await store.unsettledRecordings(recordedWithin: window)
            for (state, count) in try await linker.link(recordingIDs: unsettled) { counts[state.rawValue, default: 0] += Int64(count) }
        }
        return counts
    }
}

/// Runs `links.revalidate` jobs.
struct RevalidateLinksJobHandler: JobHandler {
    let linker: RecordingLinker
    let store: any CatalogStore

    /// The job; one live at a time.
    static func draft(priority: Int = JobPriority.normal) throws -> JobDraft {
        try RevalidateLinksJob.draft(NoJobPayload(), priority: priority, uniqueKey: RevalidateLinksJob.name)
    }

    func run(_ attempts: [JobAttempt<RevalidateLinksJob>], context: JobContext) async throws -> [JobOutcome<RevalidateLinksJob.Result>] {
        await attempts.eachAttempt { _ in .succeeded(try await revalidate()) }
    }

    /// Re-checks every link and gives recordings without a meeting another chance.
    func revalidate() async throws -> [String: Int64] {
        var counts: [String: Int64] = Dictionary(uniqueKeysWithValues: RevalidationAction.allCases.map { ($0.rawValue, 0) })
        for (action, count) in try await linker.revalidate(recordingIDs: try await store.linkedRecordings()) {
            counts[action.rawValue, default: 0] += Int64(count)
        }
        // Recordings still without a meeting get another chance (their meeting may have appeared).
        let unsettled = try await store.unsettledRecordings(recordedWithin: nil)
        counts["newly-linked"] = Int64(try await linker.link(recordingIDs: unsettled, actor: "revalidation")[.linked] ?? 0)
        return counts
    }
}
