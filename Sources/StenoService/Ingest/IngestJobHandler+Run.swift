import Foundation
import StenoAPI
import StenoCore
import StenoStore

extension IngestJobHandler {
    /// Files read and stored together: large enough that one write covers many files, small
    /// enough that two workers share a burst and the first recordings appear soon. Measured
    /// (release, 2,000 files dropped at once, 2 workers): 64 → 590 ms from enqueue to the last
    /// recording, 256 → 310 ms, 512 → 190–310 ms.
    static let filesPerBatch = 256

    /// Jobs claimed together: jobs of many files hold ``pathsPerJob`` each, so a batch holds at
    /// most ``filesPerBatch`` files (lone files are batched a few at a time).
    var maxBatchSize: Int { Self.filesPerBatch / Self.pathsPerJob }

    /// Reads every file of the batch's jobs together (hashing and parsing concurrently), then
    /// stores every catalogued outcome and completes its job in one transaction, each job fenced
    /// by its claim. Other outcomes (gone, ignored, a sidecar) are stored file by file first.
    /// A file that fails in a job of many is split out into a job of its own; a job of one file
    /// fails as `run` would.
    func run(_ attempts: [JobAttempt<IngestJob>], context: JobContext) async throws -> [JobOutcome<JSONValue>] {
        let claims = attempts.map(\.claim)
        var outcomes = [JobOutcome<JSONValue>](repeating: .failed(JobError.permanent("not run")), count: claims.count)
        var files: [(claim: Int, path: String)] = []
        var pathsOfClaim: [[String]] = Array(repeating: [], count: claims.count)
        for index in claims.indices {
            do {
                pathsOfClaim[index] = try attempts[index].payload.filePaths()
                files += pathsOfClaim[index].map { (index, $0) }
            } catch {
                outcomes[index] = .failed(error)
            }
        }
        let now = Date()
        // A job of one file on its last attempt catalogues a passing failure rather than vanish;
        // a file of a job of many is split out into a job of its own first.
        let lastAttempt = Set(
            claims.indices.filter { pathsOfClaim[$0].count == 1 && claims[$0].job.attempts >= claims[$0].job.maxAttempts }
                .flatMap { pathsOfClaim[$0] })
        let readings = await ingestor.read(files.map(\.path), now: now, lastAttempt: lastAttempt)
        var batch = ClaimFiles(claims: claims.count)
        for (file, reading) in zip(files, readings) {
            let claim = claims[file.claim]
            do {
                switch try reading.get() {
                case .record(let record):
                    batch.records[file.claim].append(FencedIngest(claim: claim, record: record))
                case let other:
                    let outcome = try await ingestor.apply(other, now: now)
                    batch.entries[file.claim][file.path] = try await fileResult(outcome, path: file.path, priority: claim.job.priority)
                }
            } catch {
                await batch.fail(file.path, of: file.claim, pathsOfClaim: pathsOfClaim, error: error, handler: self, claim: claim, context: context)
            }
        }
        let stored = await store(batch, claims: claims, pathsOfClaim: pathsOfClaim, now: now, context: context)
        for index in claims.indices where pathsOfClaim[index].count > 0 {
            if let error = stored.failures[index] {
                outcomes[index] = .failed(error)
            } else if stored.recorded.contains(index) {
                outcomes[index] = .recorded
            } else {
                let result = Self.jobResult(paths: pathsOfClaim[index], entries: stored.entries[index])
                outcomes[index] = .succeeded(result)
            }
        }
        return outcomes
    }

    /// What became of each claim's files so far.
    struct ClaimFiles {
        /// Catalogued outcomes to store together.
        var records: [[FencedIngest]]
        /// Result entries of files already dealt with, by path.
        var entries: [[String: JSONValue]]
        /// Jobs of one file that failed, with why.
        var failures: [Int: any Error] = [:]

        init(claims: Int) {
            records = Array(repeating: [], count: claims)
            entries = Array(repeating: [:], count: claims)
        }

        /// A file failed: a job of one file fails with it (permanently for bad input), a file of
        /// a job of many is split out into a job of its own.
        mutating func fail(
            _ path: String, of index: Int, pathsOfClaim: [[String]], error: any Error, handler: IngestJobHandler, claim: ClaimedJob,
            context: JobContext
        ) async {
            let failure: any Error = (error as? IngestError).map { JobError.permanent($0.description) } ?? error
            guard pathsOfClaim[index].count > 1 else {
                failures[index] = failure
                return
            }
            do {
                entries[index][path] = try await handler.splitOut(path, priority: claim.job.priority, because: error, context: context)
            } catch {
                failures[index] = error
            }
        }
    }

    /// Stores the batch's catalogued outcomes with their jobs' completions in one transaction;
    /// should that fail as a whole, file by file (a file failing alone is failed or split out).
    /// Returns which claims were completed by the store, and the rest's entries and failures.
    private func store(
        _ files: ClaimFiles, claims: [ClaimedJob], pathsOfClaim: [[String]], now: Date, context: JobContext
    ) async -> (recorded: Set<Int>, entries: [[String: JSONValue]], failures: [Int: any Error]) {
        var batch = files
        let storable = claims.indices.filter { batch.failures[$0] == nil && !batch.records[$0].isEmpty }
        guard !storable.isEmpty else { return ([], batch.entries, batch.failures) }
        if let store = ingestor.store as? any IngestBatchStore {
            let items = storable.flatMap { batch.records[$0] }
            // Each job's result names all of its files: those stored now and those dealt with before.
            var entriesOfJob: [Int64: (paths: [String], entries: [String: JSONValue])] = [:]
            for index in storable { entriesOfJob[claims[index].job.id] = (pathsOfClaim[index], batch.entries[index]) }
            let known = entriesOfJob
            let recordPaths = Dictionary(grouping: items, by: \.claim.job.id).mapValues { $0.map(\.record.path) }
            do {
                // Linking is queued in the same transaction as the recordings it links.
                let results = try await store.recordIngests(
                    items,
                    jobResult: { claim, recordings in
                        guard let job = known[claim.job.id] else { return nil }
                        var entries = job.entries
                        for (path, recording) in zip(recordPaths[claim.job.id] ?? [], recordings) {
                            entries[path] = ["path": .string(path), "recording": .int(recording.id), "status": .string(recording.status.rawValue)]
                        }
                        return Self.jobResult(paths: job.paths, entries: entries).serializedString
                    },
                    followUps: linkingDrafts(priority: claims.first?.job.priority ?? JobPriority.normal), now: Date())
                var queuedLinking = false
                for (item, result) in zip(items, results) {
                    if case .recorded(let recording) = result {
                        Self.noteFailure(of: recording, path: item.record.path, context: context)
                        queuedLinking = queuedLinking || recording.status == .ready
                    } else {
                        context.logger.warning(
                            "outcome dropped: stale lease (the lease expired and the job was requeued or taken over)",
                            metadata: ["job": "\(item.claim.job.id)", "path": .string(item.record.path)])
                    }
                }
                if queuedLinking { queue.wake() }
                return (Set(storable), batch.entries, batch.failures)
            } catch {
                context.logger.warning("could not store the batch at once (\(error)); storing its files one by one")
            }
        }
        for index in storable {
            for item in batch.records[index] {
                let path = item.record.path
                do {
                    let outcome = try await ingestor.apply(.record(item.record), now: now)
                    if case .recorded(let recording) = outcome {
                        Self.noteFailure(of: recording, path: path, context: context)
                        try await queueLinking([recording], priority: item.claim.job.priority)
                    }
                    batch.entries[index][path] = try await fileResult(outcome, path: path, priority: item.claim.job.priority)
                } catch {
                    await batch.fail(path, of: index, pathsOfClaim: pathsOfClaim, error: error, handler: self, claim: item.claim, context: context)
                }
            }
        }
        return ([], batch.entries, batch.failures)
    }

    /// A job's result from its files' entries: a job of one file has that file's entry (without
    /// the path its payload names), a job of many `{"files": [entry, …]}` in payload order.
    static func jobResult(paths: [String], entries: [String: JSONValue]) -> JSONValue {
        guard paths.count > 1 else {
            guard let path = paths.first, case .object(var entry)? = entries[path] else { return .object([:]) }
            entry["path"] = nil
            return JSONValue.object(entry)
        }
        return JSONValue.object(["files": .array(paths.map { entries[$0] ?? ["path": .string($0)] })])
    }
}
