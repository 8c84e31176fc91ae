import Foundation
import StenoCatalog
import StenoCore

/// The pure step of ingestion: what reading a batch of claimed `ingest` jobs found becomes one
/// ``IngestCommit`` (recordings, gone paths, job results, follow-up jobs), and the jobs that
/// cannot be committed fail with why. No I/O: the same readings always give the same plan.
struct IngestPlan {
    /// What to write, in one store call.
    var commit: IngestCommit
    /// For each claim, in order: the index of its job in ``commit``, or why the job fails.
    var jobs: [Result<Int, any Error>]
    /// Files that failed alone in a job of many and are retried in jobs of their own, with why.
    var splitOut: [(path: String, error: any Error)] = []
    /// Files whose job gave up while the daemon was out of descriptors or memory, queued again
    /// for later, with why.
    var postponed: [(path: String, error: any Error)] = []
    /// Large files waiting for a share of the workers, queued again for a little later, with why.
    var deferred: [(path: String, reason: String)] = []
    /// When the readings were made: postponed jobs run ``IngestJobHandler/exhaustionPause`` later.
    private let now: Date

    /// One claim's input: the paths its payload names (or why it names none), and what reading
    /// each path found, in the same order.
    struct ClaimReading {
        var claim: ClaimedJob
        var paths: Result<[String], JobError>
        var readings: [Result<RecordingIngestor.Reading, any Error>]
    }

    /// The plan for a batch: a job of one path fails with its file (permanently for bad input);
    /// a file that fails in a job of many is split out into a job of its own, and the job
    /// completes with the rest. The recordings stored ready are linked by one `link` job.
    init(_ claims: [ClaimReading], linkMaxAttempts: Int?, now: Date = Date(timeIntervalSince1970: 0)) {
        self.now = now
        commit = IngestCommit(
            jobs: [],
            linking: RecordingsJob(
                kind: LinkRecordingJobHandler.kind, priority: claims.first?.claim.job.priority ?? JobPriority.normal,
                maxAttempts: linkMaxAttempts))
        jobs = []
        for claim in claims {
            switch claim.paths {
            case .failure(let error):
                jobs.append(.failure(error))
            case .success(let paths):
                do {
                    commit.jobs.append(try job(claim.claim, paths: paths, readings: claim.readings))
                    jobs.append(.success(commit.jobs.count - 1))
                } catch {
                    jobs.append(.failure(error))
                }
            }
        }
    }

    /// The commit's entry for one claim; throws why a job of one path fails.
    private mutating func job(
        _ claim: ClaimedJob, paths: [String], readings: [Result<RecordingIngestor.Reading, any Error>]
    ) throws -> IngestCommit.Job {
        let priority = claim.job.priority
        var job = IngestCommit.Job(claim: claim, files: [], listsFiles: paths.count > 1)
        for (index, path) in paths.enumerated() {
            let reading = index < readings.count ? readings[index] : .failure(IngestError.permanent("\"\(path)\" was not read"))
            switch reading {
            case .success(.record(let record)):
                job.files.append(.init(path: path, action: .record(record)))
            case .success(.gone):
                job.files.append(.init(path: path, action: .markGone))
            case .success(.ignored(let reason)):
                job.files.append(.init(path: path, action: .ignore(reason: reason)))
            case .success(.deferred(let reason)):
                deferred.append((path, reason))
                job.files.append(
                    .init(path: path, action: .retryAlone(try IngestJobHandler.postponedDraft(
                        path: path, priority: priority, now: now, after: IngestJobHandler.deferralPause))))
            case .success(.belongsTo(let recordings)):
                // A sidecar or transcript: its recordings are read again so they pick it up.
                job.files.append(.init(path: path, action: .companion(of: recordings)))
                job.followUps += try recordings.map { try IngestJobHandler.draft(path: $0, priority: priority) }
            case .failure(let error as TransientIngestError) where error.isExhaustion && claim.job.attempts >= claim.job.maxAttempts:
                // Out of descriptors or memory on the last attempt: the daemon's trouble, not
                // the file's, so it is read again later by a job with fresh attempts.
                postponed.append((path, error))
                job.files.append(.init(path: path, action: .retryAlone(try IngestJobHandler.postponedDraft(path: path, priority: priority, now: now, after: IngestJobHandler.exhaustionPause))))
            case .failure(let error):
                guard job.listsFiles else { throw Self.jobFailure(error) }
                splitOut.append((path, error))
                job.files.append(.init(path: path, action: .retryAlone(try IngestJobHandler.draft(path: path, priority: priority))))
            }
        }
        return job
    }

    /// How a job fails with its file: bad input for good, anything else (a passing failure,
    /// the catalog) for this attempt.
    static func jobFailure(_ error: any Error) -> any Error {
        (error as? IngestError).map { JobError.permanent($0.description) } ?? error
    }

    /// The job with every file it would store split out into a job of its own: what is left of
    /// a job of many whose commit failed on its own, so each file fails (or not) alone.
    static func splittingOutRecords(of job: IngestCommit.Job) throws -> IngestCommit.Job {
        var split = job
        split.files = try job.files.map { file in
            guard case .record = file.action else { return file }
            return .init(path: file.path, action: .retryAlone(try IngestJobHandler.draft(path: file.path, priority: job.claim.job.priority)))
        }
        return split
    }
}
