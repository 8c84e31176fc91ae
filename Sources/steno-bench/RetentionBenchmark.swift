import ArgumentParser
import Foundation
import GRDB
import Logging
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoService

/// `steno-bench retention`: a retention run over a catalog of N recordings of which M have
/// outlived `keep_days`, against deleting the same rows with one plain SQL statement on a copy
/// of the same catalog, in the same run.
struct RetentionBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "A retention run over N recordings of which M expire, against a plain SQL DELETE of the same rows (target within 2×).")

    @Option(help: "Recordings in the catalog.") var recordings = 100_000
    @Option(help: "Of which older than keep_days.") var expiring = 20_000

    func run() async throws {
        guard expiring <= recordings else { throw ValidationError("--expiring must not exceed --recordings") }
        let folder = NSTemporaryDirectory() + "steno-bench-retention-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/inbox", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let now = Date()
        var settings = RetentionSettings()
        settings.policy = RetentionPolicy(keepDays: 365, owners: ["user0": 730], folders: ["user1/legal/": 0])

        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let generated = ContinuousClock.now
        let users = try await (0..<4).asyncMap { try await catalog.addUser(UserDraft(name: "user\($0)")) }
        for number in 0..<recordings {
            // The expiring ones are 400 days old (owners 2 and 3: keep_days 365); the others 30.
            let expires = number < expiring
            let owner = expires ? 2 + number % 2 : number % 4
            let made = now.addingTimeInterval(-(expires ? 400 : 30) * 86_400 - Double(number))
            _ = try await catalog.recordIngest(
                IngestRecord(
                    path: "user\(owner)/r\(number).wav", size: 1, modified: made, contentHash: "hash-\(number)", ownerID: users[owner].id,
                    outcome: .ready(RecordingMetadata(
                        format: "wav", codec: "pcm_s16le", duration: 600, recordedAt: made, recordedAtSource: .sidecar,
                        title: "Weekly review \(number)"))))
        }
        print(String(format: "catalog of %d recordings made in %.1f s", recordings, seconds(ContinuousClock.now - generated)))
        let direct = try DatabaseQueue(path: folder + "/catalog.sqlite")
        try await direct.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [folder + "/baseline.sqlite"]) }

        // The baseline: the same rows, by the same age, deleted with one statement (the
        // foreign keys and the search trigger doing the rest, as they do for the run).
        let baseline = try DatabaseQueue(path: folder + "/baseline.sqlite")
        let cutoff = CatalogTime.milliseconds(now.addingTimeInterval(-365 * 86_400))
        let plainStart = ContinuousClock.now
        let plainDeleted = try await baseline.write { db in
            try db.execute(
                sql: "DELETE FROM recordings WHERE COALESCE(recorded_at, created_at) < ? AND owner_id IN (SELECT id FROM users WHERE name IN ('user2', 'user3'))",
                arguments: [cutoff])
            return db.changesCount
        }
        let plain = seconds(ContinuousClock.now - plainStart)

        let runStart = ContinuousClock.now
        let run = RetentionRun(store: catalog, settings: settings)
        let expired = try await run.expired(now: now)
        let found = seconds(ContinuousClock.now - runStart)
        let result = try await run.delete(
            expired, now: now, finisher: RecordingDeletionJobHandler(store: catalog, inboxDirectory: folder + "/inbox"),
            context: JobContext(logger: Logger(label: "steno-bench"), workerID: "bench"))
        let retention = seconds(ContinuousClock.now - runStart)

        let left = try await direct.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recordings") ?? 0 }
        print(String(format: "plain SQL DELETE of %d rows: %.2f s", plainDeleted, plain))
        print(String(format: "retention run: %d expired found in %.2f s, %d deleted in %.2f s all told (%.0f recordings/s); %d left",
                     result.expired, found, result.deleted, retention, Double(result.deleted) / retention, left))
        let ratio = retention / plain
        print(String(format: "retention run / plain SQL: %.2f× (target ≤ 2×)", ratio))
        let pass = result.deleted == expiring && plainDeleted == expiring && left == recordings - expiring && ratio <= 2
        print(pass ? "PASS" : "FAIL")
        if !pass { throw ExitCode(1) }
    }

    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension Sequence {
    /// `map` with an async transform, in order.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
