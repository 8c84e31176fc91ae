import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoService
import StenoTesting

/// Steno as `steno-bench caldav` runs it: a fresh catalog (SQLite) per run, the service's
/// mirror over it, and the CalDAV provider with the benchmark's chunking.
struct StenoTarget {
    let catalog: SQLiteCatalog
    let accountID: Int64
    let provider: CalDAVProvider
    let mirror: TimedMirror
    let now: Date
    let remoteID: String

    init(folder: String, radicale: RadicaleServer, run: CalDAVBenchmarkRun, transport: HTTPTransport, listsByTimeRange: Bool = true) async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let owner = try await catalog.addUser(UserDraft(name: "bench", emails: ["bench@example.com"]))
        accountID = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .caldav, ownerID: owner.id, displayName: "bench",
                settings: ["url": radicale.baseURL.absoluteString, "user": run.user]), now: run.now).id
        provider = CalDAVProvider(
            transport: transport,
            options: CalDAVProvider.Options(
                multigetChunkSize: run.settings.chunk, concurrentRequests: run.settings.concurrency,
                defaultTimeZone: TimeZone(identifier: "UTC") ?? .current, listsByTimeRange: listsByTimeRange))
        mirror = TimedMirror(CatalogCalendarMirror(store: catalog, accountID: accountID, secrets: nil))
        now = run.now
        remoteID = "/\(run.user)/\(run.calendarName)/"
    }

    /// One sync as the service runs it, timed, with the CPU Steno and Radicale spent on it.
    func sync(radicale: RadicaleServer, password: String) async throws -> SyncSample {
        var logger = Logger(label: "steno-bench.caldav")
        logger.logLevel = .error
        let context = CalendarSyncContext(
            account: try await catalog.account(id: accountID), credentials: CalendarCredentials(password: password),
            window: ICalendar.mirroredWindow(around: now), mirror: mirror, logger: logger)
        mirror.reset()
        let ownCPU = RadicaleServer.cpuSeconds(ofProcess: getpid()) ?? 0
        let serverCPU = radicale.cpuSeconds ?? 0
        let start = ContinuousClock.now
        let report = try await provider.sync(context)
        let elapsed = ContinuousClock.now - start
        return SyncSample(
            seconds: elapsed.seconds, report: report,
            stenoCPU: (RadicaleServer.cpuSeconds(ofProcess: getpid()) ?? 0) - ownCPU, radicaleCPU: (radicale.cpuSeconds ?? 0) - serverCPU,
            storeSeconds: mirror.applySeconds, storeTransactions: mirror.applyCount)
    }

    /// Resources the mirror holds for the benchmark's calendar.
    func resourceCount() async throws -> Int {
        try await catalog.resourceTags(accountID: accountID, calendarRemoteID: remoteID).count
    }
}

/// One timed sync.
struct SyncSample {
    var seconds: Double
    var report: CalendarSyncReport
    /// CPU seconds of the benchmark process (Steno: parsing, expansion, SQLite, HTTP).
    var stenoCPU: Double
    /// CPU seconds of the Radicale process.
    var radicaleCPU: Double
    /// Seconds inside the mirror's transactions, and how many there were.
    var storeSeconds: Double
    var storeTransactions: Int

    var line: String {
        String(
            format: "%.3f s, %d requests, %.1f KB; CPU: Steno %.2f s, Radicale %.2f s; store %.2f s in %d transactions", seconds,
            report.requests, Double(report.bytesReceived) / 1e3, stenoCPU, radicaleCPU, storeSeconds, storeTransactions)
    }
}

extension Array where Element == Double {
    /// The median, nil for no values.
    var median: Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        return count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
    }
}

/// A mirror that times the store's transactions.
final class TimedMirror: CalendarMirror, @unchecked Sendable {
    let inner: any CalendarMirror
    private let lock = NSLock()
    private var seconds = 0.0
    private var cpuSeconds = 0.0
    private var count = 0

    init(_ inner: any CalendarMirror) { self.inner = inner }

    var applySeconds: Double { lock.withLock { seconds } }
    /// Process CPU time while change sets were applied (syncs apply one at a time).
    var applyCPUSeconds: Double { lock.withLock { cpuSeconds } }
    var applyCount: Int { lock.withLock { count } }
    func reset() { lock.withLock { seconds = 0; cpuSeconds = 0; count = 0 } }

    func calendars() async throws -> [CalendarInfo] { try await inner.calendars() }
    func resourceTags(calendarRemoteID: String) async throws -> [String: String?] { try await inner.resourceTags(calendarRemoteID: calendarRemoteID) }
    func resources(calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String> {
        try await inner.resources(calendarRemoteID: calendarRemoteID, overlapping: window)
    }
    func apply(_ changes: CalendarChangeSet) async throws -> MirrorChangeSummary {
        let start = ContinuousClock.now
        let cpuStart = GraphBenchmarkRun.processCPU()
        let summary = try await inner.apply(changes)
        let elapsed = (ContinuousClock.now - start).seconds
        let cpu = GraphBenchmarkRun.processCPU() - cpuStart
        lock.withLock { seconds += elapsed; cpuSeconds += cpu; count += 1 }
        return summary
    }
    func removeCalendars(except remoteIDs: Set<String>) async throws { try await inner.removeCalendars(except: remoteIDs) }
    func saveAccountState(syncState: String?, capabilities: String?) async throws {
        try await inner.saveAccountState(syncState: syncState, capabilities: capabilities)
    }
    func saveCredentials(_ credentials: CalendarCredentials) async throws { try await inner.saveCredentials(credentials) }
}

/// vdirsyncer syncing the collection to a filesystem storage.
final class VdirsyncerRun {
    let folder: String
    private(set) var lastOutput = ""

    init(folder: String, collection: URL, user: String, password: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder + "/local", withIntermediateDirectories: true)
        let config = """
            [general]
            status_path = "\(folder)/status/"
            [pair bench]
            a = "bench_remote"
            b = "bench_local"
            collections = null
            [storage bench_remote]
            type = "caldav"
            url = "\(collection.absoluteString)"
            username = "\(user)"
            password = "\(password)"
            [storage bench_local]
            type = "filesystem"
            path = "\(folder)/local/"
            fileext = ".ics"
            """
        try config.write(toFile: folder + "/config", atomically: true, encoding: .utf8)
        let discover = try RadicaleServer.run(["sh", "-c", "yes | vdirsyncer -c '\(folder)/config' discover bench"])
        guard discover.status == 0 else {
            throw RadicaleServerError("vdirsyncer discover failed (is it installed? pip install vdirsyncer):\n\(discover.output.suffix(600))")
        }
    }

    /// Times one `vdirsyncer sync`; nil when it fails or the local copy has the wrong count.
    func sync(expecting count: Int) throws -> Double? {
        let start = ContinuousClock.now
        let result = try RadicaleServer.run(["vdirsyncer", "-v", "WARNING", "-c", folder + "/config", "sync"])
        let seconds = (ContinuousClock.now - start).seconds
        lastOutput = result.output
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/local").filter { $0.hasSuffix(".ics") }.count) ?? 0
        guard result.status == 0 else { return nil }
        if files != count { print("vdirsyncer: \(files) files locally, expected \(count)") }
        return seconds
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
