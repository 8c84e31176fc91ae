import ArgumentParser
import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoPostgres
import StenoSQLite
import StenoService
import StenoTesting
import Synchronization

/// `steno-bench queue`: the job queue on SQLite with one daemon against PostgreSQL with 1, 2
/// and 3 daemons, in one run: no-op jobs per second (worker pools in this process, each with
/// its own catalog, as a daemon has), ingest files per second (real `stenod` processes sharing
/// one inbox), and the cost of one claim's round trip.
struct QueueBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "No-op jobs/s and ingest files/s: SQLite with one daemon, PostgreSQL with 1, 2 and 3 daemons "
            + "(targets: PostgreSQL with one daemon ≥60% of SQLite's ingest rate; more daemons never lower the total).")

    @Option(help: "No-op jobs per run.") var jobs = 5000
    @Option(help: "Files ingested per run.") var files = 3000
    @Option(help: "Claims timed one at a time for the per-claim cost.") var claims = 500
    @Option(help: "Job workers per daemon.") var workers = 2
    @Option(help: "Most PostgreSQL daemons (runs with 1 up to this many).") var daemons = 3
    @Option(help: "The daemons' settle interval in seconds.") var settle = 0.2
    @Option(help: "Rounds over every backend (each figure is the median of its rounds).") var rounds = 3
    @Option(help: "Where the generated corpus is kept between runs.") var corpus = "/tmp/steno-bench-queue-corpus"

    /// Where a run's catalog is.
    enum Backend: CustomStringConvertible {
        case sqlite
        case postgres(daemons: Int)

        var description: String {
            switch self {
            case .sqlite: "SQLite, 1 daemon"
            case .postgres(let daemons): "PostgreSQL, \(daemons) daemon\(daemons == 1 ? "" : "s")"
            }
        }
    }

    /// One backend's figures.
    struct Figures {
        var backend: Backend
        var enqueueRate: Double
        var noopRate: Double
        var ingestRate: Double
        var drainedRate: Double
        /// CPU seconds per no-op job of the pools and of the database server.
        var noopDaemonCPU: Double, noopDatabaseCPU: Double
        /// CPU seconds per ingested file of the daemons and of the database server.
        var ingestDaemonCPU: Double, ingestDatabaseCPU: Double
        /// The lowest and highest rate of the rounds (a round's figures: the rate itself).
        var noopRange: ClosedRange<Double> = 0...0, ingestRange: ClosedRange<Double> = 0...0
    }

    func run() async throws {
        let paths = try IngestBenchmark.prepareCorpus(in: corpus, count: files)
        print("starting a private PostgreSQL cluster…")
        let cluster = try await PostgresCluster.shared()
        defer { cluster.shutdown() }
        let loadBefore = IngestBenchmark.loadAverage()
        print("load before the runs: \(loadBefore)\n")

        let sqliteCost = try await claimCost(on: .sqlite, cluster: cluster)
        let postgresCost = try await claimCost(on: .postgres(daemons: 1), cluster: cluster)
        print(String(format: "one claim, one at a time: SQLite %.3f ms, PostgreSQL %.3f ms; one completion: SQLite %.3f ms, PostgreSQL %.3f ms",
                     sqliteCost.claim * 1000, postgresCost.claim * 1000, sqliteCost.complete * 1000, postgresCost.complete * 1000))

        // Rounds go through every backend in turn, so a change of the shared machine's load
        // falls on all of them; each figure is the median of its rounds.
        let backends = [Backend.sqlite] + (1...max(1, daemons)).map { Backend.postgres(daemons: $0) }
        var samples = Array(repeating: [Figures](), count: backends.count)
        for round in 1...max(1, rounds) {
            for (index, backend) in backends.enumerated() {
                let noop = try await noopRun(on: backend, cluster: cluster)
                let ingest = try await ingestRun(on: backend, paths: paths, cluster: cluster)
                print(String(format: "round %d, %@: enqueue %.0f jobs/s, no-op %.0f jobs/s, ingest %.0f files/s (%.0f/s until the queue was empty)",
                             round, backend.description, noop.enqueueRate, noop.drainRate, ingest.readyRate, ingest.drainedRate))
                samples[index].append(
                    Figures(
                        backend: backend, enqueueRate: noop.enqueueRate, noopRate: noop.drainRate, ingestRate: ingest.readyRate,
                        drainedRate: ingest.drainedRate, noopDaemonCPU: noop.daemonCPUPerJob, noopDatabaseCPU: noop.databaseCPUPerJob,
                        ingestDaemonCPU: ingest.daemonCPUPerFile, ingestDatabaseCPU: ingest.databaseCPUPerFile))
            }
        }
        let figures = zip(backends, samples).map { backend, runs in
            func median(_ value: KeyPath<Figures, Double>) -> Double { runs.map { $0[keyPath: value] }.sorted()[runs.count / 2] }
            func range(_ value: KeyPath<Figures, Double>) -> ClosedRange<Double> {
                let values = runs.map { $0[keyPath: value] }
                return (values.min() ?? 0)...(values.max() ?? 0)
            }
            return Figures(
                backend: backend, enqueueRate: median(\.enqueueRate), noopRate: median(\.noopRate), ingestRate: median(\.ingestRate),
                drainedRate: median(\.drainedRate), noopDaemonCPU: median(\.noopDaemonCPU), noopDatabaseCPU: median(\.noopDatabaseCPU),
                ingestDaemonCPU: median(\.ingestDaemonCPU), ingestDatabaseCPU: median(\.ingestDatabaseCPU), noopRange: range(\.noopRate),
                ingestRange: range(\.ingestRate))
        }
        report(figures, sqliteCost: sqliteCost, postgresCost: postgresCost, loadBefore: loadBefore)
    }

    /// The table, the ratios and the targets.
    func report(_ figures: [Figures], sqliteCost: ClaimCost, postgresCost: ClaimCost, loadBefore: String) {
        func row(_ cells: [String]) { print(cells.map { $0.padding(toLength: 24, withPad: " ", startingAt: 0) }.joined()) }
        print("")
        print("medians of \(rounds) rounds; \(jobs) no-op jobs, \(files) files, \(workers) workers per daemon")
        row(["backend", "enqueue jobs/s", "no-op jobs/s", "ingest files/s", "… queue empty", "CPU ms/job pool+db", "CPU ms/file daemons+db"])
        for figure in figures {
            row([figure.backend.description, String(format: "%.0f", figure.enqueueRate), String(format: "%.0f", figure.noopRate),
                 String(format: "%.0f", figure.ingestRate), String(format: "%.0f", figure.drainedRate),
                 String(format: "%.3f+%.3f", figure.noopDaemonCPU * 1000, figure.noopDatabaseCPU * 1000),
                 String(format: "%.3f+%.3f", figure.ingestDaemonCPU * 1000, figure.ingestDatabaseCPU * 1000)])
        }
        guard let sqlite = figures.first, figures.count > 1 else { return }
        let postgres = Array(figures.dropFirst())
        let one = postgres[0]
        print("")
        print(String(format: "PostgreSQL 1 daemon / SQLite: ingest %.0f%%, no-op %.0f%%, enqueue %.0f%%",
                     one.ingestRate / sqlite.ingestRate * 100, one.noopRate / sqlite.noopRate * 100, one.enqueueRate / sqlite.enqueueRate * 100))
        for figure in postgres.dropFirst() {
            print(String(format: "%@ / 1 daemon: ingest %.2f×, no-op %.2f×", figure.backend.description,
                         figure.ingestRate / one.ingestRate, figure.noopRate / one.noopRate))
        }
        print(String(format: "per claim (one at a time, idle queue): PostgreSQL %.3f ms = %.0f claims/s for one worker; SQLite %.3f ms",
                     postgresCost.claim * 1000, 1 / postgresCost.claim, sqliteCost.claim * 1000))
        print("")
        let ratio = one.ingestRate / sqlite.ingestRate
        print(String(format: "PostgreSQL with one daemon: %.0f%% of SQLite's ingest rate (target ≥60%%): %@", ratio * 100, ratio >= 0.6 ? "PASS" : "FAIL"))
        // Lower means lower in every round: each round's rate under the lowest round of one
        // daemon fewer. Medians closer than the rounds' own spread are the machine's noise.
        var previous = one
        var neverLower = true
        func spread(_ range: ClosedRange<Double>) -> String { String(format: "%.0f–%.0f", range.lowerBound, range.upperBound) }
        for figure in postgres.dropFirst() {
            let ingestLower = figure.ingestRange.upperBound < previous.ingestRange.lowerBound
            let noopLower = figure.noopRange.upperBound < previous.noopRange.lowerBound
            neverLower = neverLower && !ingestLower && !noopLower
            print(String(format: "%@ vs %@: ingest %.0f → %.0f files/s (rounds %@ → %@)%@, no-op %.0f → %.0f jobs/s (rounds %@ → %@)%@",
                         figure.backend.description, previous.backend.description, previous.ingestRate, figure.ingestRate,
                         spread(previous.ingestRange), spread(figure.ingestRange), ingestLower ? " LOWER" : "", previous.noopRate,
                         figure.noopRate, spread(previous.noopRange), spread(figure.noopRange), noopLower ? " LOWER" : ""))
            previous = figure
        }
        print("adding daemons never lowers the total, every round of more daemons at or above the lowest of fewer (target): "
              + (neverLower ? "PASS" : "FAIL"))
        print("every daemon runs on this one machine (\(ProcessInfo.processInfo.activeProcessorCount) cores), with the database server: "
              + "more daemons add workers, not cores")
        print("load before the runs: \(loadBefore); after: \(IngestBenchmark.loadAverage())")
    }

    // MARK: - No-op jobs in this process

    /// A fresh catalog per simulated daemon: one SQLite file, or one pool each on a fresh
    /// PostgreSQL database.
    func catalogs(
        for backend: Backend, cluster: PostgresCluster
    ) async throws -> (stores: [any CatalogStore], database: String?, close: () -> Void) {
        switch backend {
        case .sqlite:
            let folder = NSTemporaryDirectory() + "steno-bench-queue-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
            return ([catalog], nil, { try? FileManager.default.removeItem(atPath: folder) })
        case .postgres(let daemons):
            let database = try await cluster.createDatabase(prefix: "steno_bench")
            let settings = try PostgresSettings.parse(url: cluster.socketURL(database: database))
            var catalogs: [PostgresCatalog] = []
            for index in 0..<daemons {
                var logger = Logger(label: "steno.bench.daemon\(index)")
                logger.logLevel = .warning
                catalogs.append(try await PostgresCatalog.open(settings, logger: logger))
            }
            return (catalogs, database, { catalogs.forEach { $0.close() } })
        }
    }

    /// Enqueues the no-op jobs (batches of 100) with every pool stopped, then starts one pool
    /// per daemon and times until the queue is empty.
    func noopRun(on backend: Backend, cluster: PostgresCluster) async throws -> NoopRun {
        let (stores, database, close) = try await catalogs(for: backend, cluster: cluster)
        let ownStart = ProcessCPU.seconds(pid: getpid()) ?? 0, databaseStart = database.map(ProcessCPU.databaseSeconds) ?? 0
        defer { close() }
        let drafts = (0..<jobs).map { _ in JobDraft(kind: NoopJob.name, payload: "{}") }
        let enqueueStart = Date()
        for start in stride(from: 0, to: drafts.count, by: 100) {
            _ = try await stores[0].enqueue(Array(drafts[start..<min(drafts.count, start + 100)]))
        }
        let enqueueSeconds = Date().timeIntervalSince(enqueueStart)
        var settings = JobWorkerPool.Settings()
        settings.workers = workers
        let ran = RunCount()
        let pools = stores.enumerated().map { index, store in
            var logger = Logger(label: "steno.bench.pool\(index)")
            logger.logLevel = .warning
            return JobWorkerPool(queue: JobQueue(store: store), handlers: [CountedNoopHandler(ran: ran)], settings: settings, logger: logger)
        }
        let drainStart = Date()
        let running = pools.map { pool in Task { try await pool.run() } }
        defer { running.forEach { $0.cancel() } }
        let deadline = Date().addingTimeInterval(600)
        // Counted in this process until every job ran, so polling does not load the database
        // being measured; then the catalog, until the last completions are recorded.
        while true {
            guard Date() < deadline else { throw ValidationError("\(backend): the no-op jobs were not done within 600 s") }
            if ran.value.load(ordering: .relaxed) >= jobs, try await stores[0].statistics().queueDepth == 0 { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        let drainSeconds = Date().timeIntervalSince(drainStart)
        let succeeded = try await stores[0].jobs(state: .succeeded, kind: nil, afterID: nil, limit: jobs + 1).count
        guard succeeded == jobs else { throw ValidationError("\(backend): \(succeeded) of \(jobs) no-op jobs succeeded") }
        for task in running {
            task.cancel()
            _ = try? await task.value
        }
        let ownSeconds = (ProcessCPU.seconds(pid: getpid()) ?? 0) - ownStart
        let databaseSeconds = (database.map(ProcessCPU.databaseSeconds) ?? 0) - databaseStart
        return NoopRun(
            enqueueRate: Double(jobs) / enqueueSeconds, drainRate: Double(jobs) / drainSeconds,
            daemonCPUPerJob: ownSeconds / Double(jobs), databaseCPUPerJob: databaseSeconds / Double(jobs))
    }

    /// One no-op run's figures; CPU per job from enqueue to completion, the pools' (this
    /// process) and the database server's.
    struct NoopRun {
        var enqueueRate: Double
        var drainRate: Double
        var daemonCPUPerJob: Double
        var databaseCPUPerJob: Double
    }

    /// The time of one claim and of one completion, one at a time on an otherwise idle queue:
    /// the round trip every claim of every worker pays at least.
    struct ClaimCost {
        var claim: Double
        var complete: Double
    }

    func claimCost(on backend: Backend, cluster: PostgresCluster) async throws -> ClaimCost {
        let (stores, _, close) = try await catalogs(for: backend, cluster: cluster)
        defer { close() }
        let store = stores[0]
        _ = try await store.enqueue((0..<claims).map { _ in JobDraft(kind: NoopJob.name, payload: "{}") })
        var claiming = 0.0, completing = 0.0
        for _ in 0..<claims {
            let claimStart = Date()
            guard let claim = try await store.claim(workerID: "bench/1/1", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: Date()).first
            else { throw ValidationError("\(backend): a claim found no job") }
            let completeStart = Date()
            _ = try await store.complete([JobCompletion(claim: claim, result: nil)], now: Date())
            claiming += completeStart.timeIntervalSince(claimStart)
            completing += Date().timeIntervalSince(completeStart)
        }
        return ClaimCost(claim: claiming / Double(max(1, claims)), complete: completing / Double(max(1, claims)))
    }
}

/// The product's no-op handler, counting the jobs it ran.
struct CountedNoopHandler: JobHandler {
    let ran: RunCount

    func run(_ attempts: [JobAttempt<NoopJob>], context: JobContext) async throws -> [JobOutcome<NoopJob.Result>] {
        defer { ran.value.add(attempts.count, ordering: .relaxed) }
        return try await NoopJobHandler().run(attempts, context: context)
    }
}

/// How many jobs ran, shared by the pools of a run.
final class RunCount: Sendable {
    let value = Atomic<Int>(0)
}
