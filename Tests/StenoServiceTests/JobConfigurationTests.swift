import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// `[jobs]` and `[[schedule]]` in stenod.toml, and the scheduler's enqueueing.
@Suite("Job configuration and scheduler")
struct JobConfigurationTests {
    let folder: String = {
        let path = NSTemporaryDirectory() + "steno-jobconfig-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func load(_ toml: String) throws -> StenoConfiguration {
        let path = folder + "/stenod.toml"
        try toml.write(toFile: path, atomically: true, encoding: .utf8)
        return try StenoConfiguration.load(overrides: .init(configFile: path), environment: ["HOME": "/home/a"], uid: 1000)
    }

    func failure(_ toml: String) -> String {
        do {
            _ = try load(toml)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func defaultsAndSettings() throws {
        let defaults = try load("")
        #expect(defaults.jobs == JobSettings())
        #expect(defaults.jobs.workers == 2)
        #expect(defaults.jobs.leaseSeconds == 60)
        #expect(defaults.jobs.maxAttempts == 5)
        #expect(defaults.schedules.isEmpty)

        let configured = try load("""
            [jobs]
            workers = 4
            lease_seconds = 30
            max_attempts = 8

            [[schedule]]
            kind = "calendar.sync"
            cron = "*/5 * * * *"

            [[schedule]]
            kind = "links.revalidate"
            cron = "0 3 * * *"
            time_zone = "Europe/Berlin"
            payload = { scope = "all", limit = 10 }
            """)
        #expect(configured.jobs.workers == 4)
        #expect(configured.jobs.leaseSeconds == 30)
        #expect(configured.jobs.maxAttempts == 8)
        #expect(configured.schedules.map(\.kind) == ["calendar.sync", "links.revalidate"])
        #expect(configured.schedules[0].payload == "{}")
        #expect(configured.schedules[1].cron == (try CronSchedule("0 3 * * *")))
        #expect(configured.schedules[1].timeZone.identifier == "Europe/Berlin")
        let payload = try #require(configured.schedules[1].payload.data(using: .utf8))
        let object = try JSONSerialization.jsonObject(with: payload) as? [String: Any]
        #expect(object?["scope"] as? String == "all")
        #expect(object?["limit"] as? Int == 10)
    }

    @Test func mistakesAreExplained() {
        #expect(failure("[jobs]\nworker = 2").contains("unknown setting \"jobs.worker\""))
        #expect(failure("[jobs]\nworkers = 0").contains("jobs.workers must be an integer from 1"))
        #expect(failure("[jobs]\nlease_seconds = \"60\"").contains("jobs.lease_seconds"))
        #expect(failure("jobs = 3").contains("[jobs] must be a table"))
        #expect(failure("[[schedule]]\nkind = \"x\"\ncron = \"61 * * * *\"").contains("minute: 61 is out of range"))
        #expect(failure("[[schedule]]\nkind = \"x\"").contains("cron must be a string"))
        #expect(failure("[[schedule]]\ncron = \"@daily\"").contains("kind must be a non-empty string"))
        #expect(failure("[[schedule]]\nkind = \"x\"\ncron = \"@daily\"\nzone = \"UTC\"").contains("unknown setting \"zone\""))
        #expect(failure("[[schedule]]\nkind = \"x\"\ncron = \"@daily\"\ntime_zone = \"Mars/Olympus\"").contains("IANA"))
        #expect(failure("[[schedule]]\nkind = \"x\"\ncron = \"@daily\"\npayload = 3").contains("payload must be a table"))
        #expect(
            failure("[[schedule]]\nkind = \"x\"\ncron = \"@daily\"\n[[schedule]]\nkind = \"x\"\ncron = \"@hourly\"")
                .contains("exists already"))
    }

    @Test func theSchedulerEnqueuesOncePerLiveRun() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let queue = JobQueue(store: catalog, defaultMaxAttempts: 2)
        let entry = JobScheduler.Entry(
            kind: "calendar.sync", schedule: try CronSchedule("*/5 * * * *"), payload: #"{"all":true}"#,
            timeZone: TimeZone(identifier: "UTC")!)
        let scheduler = JobScheduler(
            queue: queue, fires: catalog, entries: [entry], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let fire = Date(timeIntervalSince1970: 1_800_000_000)
        await scheduler.enqueue(entry, firedAt: fire)
        await scheduler.enqueue(entry, firedAt: fire.addingTimeInterval(300))  // previous still queued
        let jobs = try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10)
        #expect(jobs.count == 1)
        #expect(jobs[0].uniqueKey == "schedule:calendar.sync")
        #expect(jobs[0].runAt == fire)
        #expect(jobs[0].payload == #"{"all":true}"#)
        #expect(jobs[0].maxAttempts == 2)
    }

    @Test func daemonsSharingAQueueEnqueueEachFireTimeOnce() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let entry = JobScheduler.Entry(kind: "links.revalidate", schedule: try CronSchedule("0 3 * * *"), timeZone: TimeZone(identifier: "UTC")!)
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        // Two daemons: each its own queue and scheduler over one catalog.
        let first = JobScheduler(queue: JobQueue(store: catalog), fires: catalog, entries: [entry], logger: logger)
        let second = JobScheduler(queue: JobQueue(store: catalog), fires: catalog, entries: [entry], logger: logger)
        let fire = Date(timeIntervalSince1970: 1_800_003_600)
        await first.enqueue(entry, firedAt: fire)
        // The run finishes before the second daemon gets to the same fire time.
        let claims = try await catalog.claim(workerID: "host/1/1", kinds: nil, limits: [:], leaseDuration: .seconds(60), now: fire)
        #expect(try await catalog.complete(claims.map { JobCompletion(claim: $0, result: nil) }, now: fire) == [true])
        await second.enqueue(entry, firedAt: fire)
        #expect(try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10).count == 1)
        // The next fire time is enqueued again, by whichever daemon comes first.
        await second.enqueue(entry, firedAt: fire.addingTimeInterval(86_400))
        await first.enqueue(entry, firedAt: fire.addingTimeInterval(86_400))
        #expect(try await catalog.jobs(state: nil, kind: nil, afterID: nil, limit: 10).count == 2)
    }
}
