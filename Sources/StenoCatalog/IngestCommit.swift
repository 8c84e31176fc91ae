import Foundation
import StenoCore
import StenoJSON

/// Everything one ingest pass writes, as one value: each claimed job with what became of its
/// files, and the jobs that follow from them. A store writes it in one transaction, so a file's
/// outcome exists exactly when its job succeeded, and the linking of its recording is queued
/// with it. Built by a pure step from what reading the files found; nothing in it calls back.
public struct IngestCommit: Sendable, Hashable {
    /// The jobs the commit completes, each fenced by its claim.
    public var jobs: [Job]
    /// The job queued for the recordings this commit stores ready, if any are.
    public var linking: RecordingsJob?

    /// A commit of `jobs`, linking what it stores ready with `linking`.
    public init(jobs: [Job], linking: RecordingsJob?) {
        self.jobs = jobs
        self.linking = linking
    }

    /// One claimed job and what becomes of each of its files, in payload order.
    public struct Job: Sendable, Hashable {
        /// The claim whose fencing token is checked: a stale claim writes nothing.
        public var claim: ClaimedJob
        public var files: [File]
        /// Jobs queued when this job completes (a sidecar's recordings, read again to pair it).
        public var followUps: [JobDraft]
        /// Whether the job's result lists its files (`{"files": [entry, …]}`, a job of many
        /// paths) or is its one file's entry without the path its payload names.
        public var listsFiles: Bool

        /// A job completing with `files`, queuing `followUps`.
        public init(claim: ClaimedJob, files: [File], followUps: [JobDraft] = [], listsFiles: Bool) {
            self.claim = claim
            self.files = files
            self.followUps = followUps
            self.listsFiles = listsFiles
        }
    }

    /// One path of a job and what to write for it.
    public struct File: Sendable, Hashable {
        /// The path relative to the inbox, as the job's payload names it.
        public var path: String
        public var action: Action

        public init(path: String, action: Action) {
            self.path = path
            self.action = action
        }
    }

    /// What to write for one path.
    public enum Action: Sendable, Hashable {
        /// Store the outcome of reading the file (as `RecordingStore.recordIngest` would).
        case record(IngestRecord)
        /// The file is gone (as `RecordingStore.markPathGone` would).
        case markGone
        /// Nothing to catalogue, for this reason.
        case ignore(reason: String)
        /// A sidecar or transcript of these recording paths.
        case companion(of: [String])
        /// The file failed alone in a job of many: queue this job of its own for it.
        case retryAlone(JobDraft)
    }

    /// What writing one path did.
    public enum Written: Sendable, Hashable {
        /// The recording as catalogued (ready or failed).
        case recorded(Recording)
        /// The path is gone; its recording, if any, as it is now.
        case gone(Recording?)
        case ignored(reason: String)
        case companion(of: [String])
        /// Queued as the job with this id.
        case retried(jobID: Int64)
    }

    /// How one job of the commit ended.
    public enum JobEnd: Sendable, Hashable {
        /// Written and completed: one entry per file, in order.
        case completed([Written])
        /// The claim was stale (the lease expired and the job was requeued or taken over):
        /// nothing of the job was written.
        case staleLease
    }
}

/// A job over recordings a commit stores, queued once their ids are known: `{"recording": ID}`
/// with the unique key `KIND:ID` for one recording, `{"recordings": [ID, …]}` for several.
public struct RecordingsJob: Sendable, Hashable {
    public var kind: String
    public var priority: Int
    public var maxAttempts: Int?

    public init(kind: String, priority: Int, maxAttempts: Int?) {
        self.kind = kind
        self.priority = priority
        self.maxAttempts = maxAttempts
    }

    /// The draft for these recordings (sorted, each once), or nil when there are none.
    public func draft(recordingIDs: [Int64]) -> JobDraft? {
        let ids = Array(Set(recordingIDs)).sorted()
        guard let first = ids.first else { return nil }
        var draft =
            ids.count == 1
            ? JobDraft(kind: kind, payload: JSONValue.object(["recording": .int(first)]).serializedString, priority: priority, uniqueKey: "\(kind):\(first)")
            : JobDraft(kind: kind, payload: JSONValue.object(["recordings": .array(ids.map { .int($0) })]).serializedString, priority: priority)
        draft.maxAttempts = maxAttempts
        return draft
    }
}

/// A store that writes an ``IngestCommit`` in one transaction, and answers what reading the
/// files needs (known paths, users).
public protocol IngestStore: RecordingStore, UserStore, JobQueueStore {
    /// Writes every held job of the commit and completes it, with its follow-ups, and queues
    /// `commit.linking` for the recordings stored ready — all in one transaction. A job whose
    /// claim is stale writes nothing and is `.staleLease`, without affecting the others.
    /// Returns one end per job, in order. Queued jobs wake no worker: the caller does.
    ///
    /// - Throws: `StoreError.invalid` when a queued draft is not valid (then nothing is written).
    func commitIngest(_ commit: IngestCommit, now: Date) async throws -> [IngestCommit.JobEnd]
}

extension IngestCommit.Job {
    /// The job's stored result once its files are written: a job of one path has that file's
    /// entry (`{"recording": ID, "status": S}`, `{"gone": true, "recording": ID|null}`,
    /// `{"ignored": WHY}`, `{"companionOf": [PATH, …]}`), a job of many `{"files": [entry, …]}`
    /// in payload order, each entry with its `"path"`. A recording stored ready has the id of
    /// the job linking it (`"linkJob": ID`) when `linkJob` is given.
    public func result(_ written: [IngestCommit.Written], linkJob: Int64? = nil) -> String {
        let entries = zip(files, written).map { file, written in
            let entry = Self.entry(written, path: listsFiles ? file.path : nil)
            guard let linkJob, case .recorded(let recording) = written, recording.status == .ready, case .object(var fields) = entry
            else { return entry }
            fields["linkJob"] = .int(linkJob)
            return .object(fields)
        }
        let result: JSONValue = listsFiles ? ["files": .array(entries)] : entries.first ?? [:]
        return result.serializedString
    }

    /// One file's entry in the result.
    static func entry(_ written: IngestCommit.Written, path: String?) -> JSONValue {
        var entry: [String: JSONValue] = [:]
        switch written {
        case .recorded(let recording):
            entry = ["recording": .int(recording.id), "status": .string(recording.status.rawValue)]
        case .gone(let recording):
            // The key is always there: null when the path had no recording.
            entry = ["gone": true, "recording": recording.map { .int($0.id) } ?? .null]
        case .ignored(let reason):
            entry = ["ignored": .string(reason)]
        case .companion(let recordings):
            entry = ["companionOf": .array(recordings.map { .string($0) })]
        case .retried(let jobID):
            entry = ["retriedAs": .int(jobID)]
        }
        if let path { entry["path"] = .string(path) }
        return .object(entry)
    }
}
