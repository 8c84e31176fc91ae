import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// `[calendars]` in stenod.toml, and the scheduler that enqueues due account syncs.
@Suite("Calendar configuration and sync scheduling")
struct CalendarConfigurationTests {
    let folder: String = {
        let path = NSTemporaryDirectory() + "steno-calconfig-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    func load(_ toml: String, environment: [String: String] = ["HOME": "/home/a"]) throws -> StenoConfiguration {
        let path = folder + "/stenod.toml"
        try toml.write(toFile: path, atomically: true, encoding: .utf8)
        return try StenoConfiguration.load(overrides: .init(configFile: path), environment: environment, uid: 1000)
    }

    @Test func defaultsSettingsAndMistakes() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let defaults = try load("")
        #expect(defaults.calendars.windowPastDays == 180 && defaults.calendars.windowFutureDays == 365)
        #expect(defaults.calendars.syncInterval == .seconds(300))
        #expect(defaults.secretKeyPath(environment: [:]) == defaults.dataDirectory + "/secret.key")
        let set = try load("[calendars]\nwindow_past_days = 30\nwindow_future_days = 60\nsync_interval_minutes = 1.5\nsecret_key_file = \"\(folder)/key\"\n")
        #expect(set.calendars.windowPastDays == 30 && set.calendars.windowFutureDays == 60)
        #expect(set.calendars.syncInterval == .seconds(90))
        #expect(set.secretKeyPath(environment: [:]) == folder + "/key")
        // A systemd credential is used when no file is configured.
        try Data(repeating: 1, count: 32).write(to: URL(fileURLWithPath: folder + "/steno-secret-key"))
        #expect(defaults.secretKeyPath(environment: ["CREDENTIALS_DIRECTORY": folder]) == folder + "/steno-secret-key")
        #expect(throws: ConfigurationError.self) { _ = try load("[calendars]\nwindow = 3\n") }
        #expect(try load("[calendars]\nmember_networks = [\"10.0.0.0/8\", \"fd00::/8\", \"nextcloud.corp.example\"]\n").calendars.memberNetworks.count == 3)
        #expect(throws: ConfigurationError.self) { _ = try load("[calendars]\nmember_networks = [\"10.0.0.0/99\"]\n") }
        #expect(throws: ConfigurationError.self) { _ = try load("[calendars]\nmember_networks = \"10.0.0.0/8\"\n") }
        #expect(throws: ConfigurationError.self) { _ = try load("[calendars]\nsync_interval_minutes = 0\n") }
    }

    @Test func floatingTimesAreReadInTheCalendarsZoneElseTheLinksZone() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try load("").calendarTimeZone == TimeZone.current)
        #expect(try load("[links]\ntime_zone = \"America/New_York\"\n").calendarTimeZone.identifier == "America/New_York")
        let both = try load("[links]\ntime_zone = \"America/New_York\"\n[calendars]\ntime_zone = \"Europe/Berlin\"\n")
        #expect(both.calendarTimeZone.identifier == "Europe/Berlin")
        #expect(throws: ConfigurationError.self) { _ = try load("[calendars]\ntime_zone = \"Pacific Standard Time\"\n") }
    }

    @Test func dueAccountsAreEnqueuedOncePerLiveSync() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice"))
        let now = Date()
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: "/x.ics", settings: ["source": "/x.ics"]), now: now)
        let blocked = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: alice.id, displayName: "/y.ics", settings: ["source": "/y.ics"]), now: now)
        try await catalog.recordSyncResult(
            accountID: blocked.id, .failed(at: now, message: "HTTP 401", health: .needsCredentials, nextSyncAt: nil))
        let queue = JobQueue(store: catalog)
        let scheduler = CalendarSyncScheduler(store: catalog, queue: queue, tick: .seconds(1), logger: Logger(label: "test"))
        #expect(try await scheduler.enqueueDue(now: now) == 1)
        // Still live: not enqueued again.
        #expect(try await scheduler.enqueueDue(now: now) == 0)
        let jobs = try await catalog.jobs(state: nil, kind: CalendarSyncJobHandler.kind, afterID: nil, limit: 10)
        #expect(jobs.count == 1 && jobs.first?.uniqueKey == "calendar.sync:\(account.id)")
    }
}
