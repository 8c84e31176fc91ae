#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoService
import StenoTesting

/// `steno-bench graph`: a full sync of a 10,000-event mailbox (100 per page) from the Graph
/// double, then an incremental sync after 10 changes, into a real catalog (SQLite) through
/// the service's mirror. The double runs on one thread of this process; its CPU time is
/// measured on that thread and subtracted, so "Steno CPU" is the provider, the HTTP client
/// and the store.
struct GraphBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Graph full and incremental sync against the double (targets: Steno CPU < 50 µs per event; incremental = 1 request).")

    @Option(help: "Events in the mailbox.") var events = 10_000
    @Option(help: "Events per page (Prefer: odata.maxpagesize).") var pageSize = 100
    @Option(help: "Changes between the full and the incremental sync (modified, added, deleted).") var changes = 10
    @Option(help: "Full syncs, each into a new catalog (the median is reported).") var runs = 5

    func run() async throws {
        try await GraphBenchmarkRun(settings: Settings(events: events, pageSize: pageSize, changes: changes, runs: runs)).run()
    }

    struct Settings: Sendable {
        var events: Int
        var pageSize: Int
        var changes: Int
        var runs: Int
    }
}

/// One run of the Graph benchmark.
struct GraphBenchmarkRun {
    let settings: GraphBenchmark.Settings
    let mailbox = "bench@contoso.com"
    let now = Date()

    /// What one measured sync cost.
    struct Figures {
        var seconds: Double
        var processCPU: Double
        var doubleCPU: Double
        var requests: Int
        var bytes: Int
        var report: CalendarSyncReport
        /// The mirror's share: CPU and wall time while its transactions ran, and how many.
        var storeCPU = 0.0
        var storeSeconds = 0.0
        var transactions = 0
        var stenoCPU: Double { max(0, processCPU - doubleCPU) }
    }

    func run() async throws {
        let double = try GraphDouble(threads: 1)
        defer { double.shutdown() }
        double.setRecording(false)
        let window = ICalendar.mirroredWindow(around: now)
        seed(double, window: window)
        let folder = NSTemporaryDirectory() + "steno-bench-graph-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let transport = HTTPTransport()
        do {
            try await measure(double: double, transport: transport, folder: folder, window: window)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    /// `events` single events spread over the window, each with three attendees.
    func seed(_ double: GraphDouble, window: DateInterval) {
        let step = window.duration / Double(settings.events + 1)
        for index in 0..<settings.events {
            double.put(event(index, start: window.start.addingTimeInterval(step * Double(index + 1))), mailbox: mailbox)
        }
    }

    func event(_ index: Int, start: Date) -> GraphDouble.Event {
        let rounded = Date(timeIntervalSince1970: (start.timeIntervalSince1970 / 60).rounded(.down) * 60)
        return GraphDouble.Event(
            id: "AAMkAGI2TG93AAA-\(String(format: "%06d", index))", subject: "Meeting \(index)", start: rounded,
            end: rounded.addingTimeInterval(1800), organizer: .init(email: mailbox, name: "Bench"),
            attendees: [
                .init(mailbox, name: "Bench", response: "organizer"), .init("bob@contoso.com", name: "Bob", response: "accepted"),
                .init("room-\(index % 20)@contoso.com", name: "Room", type: "resource", response: "accepted"),
            ],
            location: "Room \(index % 20)", joinURL: "https://teams.microsoft.com/l/meetup-join/19%3ameeting_\(index)",
            webLink: "https://outlook.office365.com/owa/?itemid=\(index)")
    }

    /// A fresh catalog with the mailbox's account, synced through the service's mirror.
    struct Target {
        let catalog: SQLiteCatalog
        let accountID: Int64
        let mirror: TimedMirror
    }

    private func makeTarget(double: GraphDouble, path: String, secrets: SecretBox) async throws -> Target {
        let catalog = try await SQLiteCatalog.open(path: path)
        let owner = try await catalog.addUser(UserDraft(name: "bench", emails: [mailbox]))
        let refresh = double.issueRefreshToken(for: mailbox)
        let stored = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .graph, ownerID: owner.id, displayName: mailbox,
                settings: [
                    "mode": "delegated", "client_id": "steno-test-client", "authority": double.baseURL.absoluteString,
                    "graph_url": double.graphURL.absoluteString, "mailbox": mailbox,
                ],
                sealedSecret: try secrets.seal(CalendarCredentials(refreshToken: refresh))), now: now)
        return Target(
            catalog: catalog, accountID: stored.id, mirror: TimedMirror(CatalogCalendarMirror(store: catalog, accountID: stored.id, secrets: secrets)))
    }

    private func sync(
        _ target: Target, provider: GraphProvider, double: GraphDouble, secrets: SecretBox, window: DateInterval
    ) async throws -> Figures {
        var logger = Logger(label: "steno-bench.graph")
        logger.logLevel = .error
        let sealed = try await target.catalog.sealedSecret(accountID: target.accountID)
        let context = CalendarSyncContext(
            account: try await target.catalog.account(id: target.accountID), credentials: try sealed.map { try secrets.unseal($0) },
            window: window, mirror: target.mirror, logger: logger)
        target.mirror.reset()
        double.resetCounters()
        let cpuBefore = Self.processCPU()
        let doubleBefore = try double.serverCPUSeconds()
        let start = ContinuousClock.now
        let report = try await provider.sync(context)
        let elapsed = ContinuousClock.now - start
        let doubleCPU = try double.serverCPUSeconds() - doubleBefore
        let cpu = Self.processCPU() - cpuBefore
        let served = double.counters
        return Figures(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, processCPU: cpu,
            doubleCPU: doubleCPU, requests: served.requests, bytes: served.bytesSent, report: report,
            storeCPU: target.mirror.applyCPUSeconds, storeSeconds: target.mirror.applySeconds, transactions: target.mirror.applyCount)
    }

    private func measure(double: GraphDouble, transport: HTTPTransport, folder: String, window: DateInterval) async throws {
        let secrets = SecretBox(keyBytes: (0..<32).map { _ in UInt8.random(in: 0...255) })
        let provider = GraphProvider(transport: transport, options: GraphProvider.Options(pageSize: settings.pageSize))

        print("Graph double: \(settings.events) events in one mailbox, \(settings.pageSize) per page; Steno writes a real catalog\n")
        let (baseline, pages) = try await fetchPages(double: double, transport: transport, window: window)
        print(line("baseline: the same pages fetched, not read", baseline, events: settings.events))
        let readingStart = Self.processCPU()
        let mapped = try GraphProvider.readPagesForBenchmark(pages)
        let reading = Self.processCPU() - readingStart
        print(String(format: "  of Steno's work, reading and mapping the pages alone: %.2f s CPU, %.1f µs per event (%d events)",
                     reading, reading / Double(max(1, mapped)) * 1e6, mapped))

        // Full syncs, each into a new catalog: CPU time on a shared machine varies from run to
        // run, so the median is the figure.
        var fulls: [Figures] = []
        var target: Target?
        for run in 1...max(1, settings.runs) {
            let fresh = try await makeTarget(double: double, path: folder + "/catalog-\(run).sqlite", secrets: secrets)
            let full = try await sync(fresh, provider: provider, double: double, secrets: secrets, window: window)
            print(line("full sync \(run)", full, events: settings.events))
            print(String(format: "  mirror: %d transactions, %.2f s wall, %.2f s CPU; %d inserted", full.transactions, full.storeSeconds,
                         full.storeCPU, full.report.changes.inserted))
            fulls.append(full)
            target = fresh
        }
        guard let target else { return }
        let full = fulls.sorted { $0.stenoCPU < $1.stenoCPU }[fulls.count / 2]

        // The changes: a third modified, a third added, the rest deleted.
        let modified = settings.changes / 3, added = settings.changes / 3, deleted = settings.changes - modified - added
        for index in 0..<modified { double.update(event(index * 7, start: now).id, mailbox: mailbox) { $0.subject += " (moved)" } }
        for index in 0..<added { double.put(event(settings.events + index, start: now.addingTimeInterval(Double(index) * 3600)), mailbox: mailbox) }
        for index in 0..<deleted { double.remove(event(settings.events - 1 - index * 11, start: now).id, mailbox: mailbox) }
        let incremental = try await sync(target, provider: provider, double: double, secrets: secrets, window: window)
        print(line("incremental sync", incremental, events: settings.changes))
        let changes = incremental.report.changes
        print("  applied: \(changes.inserted) inserted, \(changes.updated) updated, \(changes.deleted) deleted")

        let live = try await target.catalog.mirroredEvents(accountID: target.accountID, includeDeleted: false).count
        print("\nmirror holds \(live) events (the double: \(settings.events + added - deleted))")
        let perEvent = full.stenoCPU / Double(max(1, settings.events)) * 1e6
        let all = fulls.map { String(format: "%.1f", $0.stenoCPU / Double(max(1, settings.events)) * 1e6) }.joined(separator: ", ")
        print(String(format: "Steno CPU per event (full sync, median of %d: %@): %.1f µs — target < 50 µs: %@", fulls.count, all, perEvent,
                     perEvent < 50 ? "met" : "NOT met"))
        let outsideStore = max(0, full.stenoCPU - full.storeCPU) / Double(max(1, settings.events)) * 1e6
        print(String(format: "  of which the store (CPU while the mirror's transactions ran): %.1f µs per event; the rest (HTTP client, reading, "
                     + "mapping, delta logic): %.1f µs per event", full.storeCPU / Double(max(1, settings.events)) * 1e6, outsideStore))
        print(String(format: "full sync: Steno CPU %.2f s vs the double's %.2f s (its pages were rendered during the baseline; ratio %.2f)",
                     full.stenoCPU, full.doubleCPU, full.stenoCPU / max(full.doubleCPU, 1e-9)))
        print("incremental sync requests: \(incremental.requests) — target 1: \(incremental.requests == 1 ? "met" : "NOT met")")
        print(String(format: "incremental vs full: %.4f× the time, %.4f× the bytes", incremental.seconds / max(full.seconds, 1e-9),
                     Double(incremental.bytes) / Double(max(full.bytes, 1))))
    }

    /// The baseline: every page of a full round fetched over the same HTTP client and thrown
    /// away, so the sync's own cost (reading, mapping, storing) stands out beside it.
    private func fetchPages(double: GraphDouble, transport: HTTPTransport, window: DateInterval) async throws -> (Figures, [Data]) {
        var pages: [Data] = []
        let endpoint = OAuthTokenEndpoint(
            tokenURL: double.baseURL.appendingPathComponent("common/oauth2/v2.0/token"), clientID: "steno-test-client", transport: transport)
        guard case .tokens(let tokens) = try await endpoint.post([("grant_type", "refresh_token"), ("refresh_token", double.issueRefreshToken(for: mailbox))]).outcome
        else { throw GraphBenchmarkError("the double refused the baseline's token") }
        let headers = [
            ("Authorization", HTTPAuthorization.bearer(tokens.accessToken)),
            ("Prefer", "odata.maxpagesize=\(settings.pageSize), outlook.timezone=\"UTC\", IdType=\"ImmutableId\""),
        ]
        var components = URLComponents(url: double.graphURL.appendingPathComponent("me/calendarView/delta"), resolvingAgainstBaseURL: false)
        components?.queryItems = [
            URLQueryItem(name: "startDateTime", value: LocalDateTime(utc: window.start).description + "Z"),
            URLQueryItem(name: "endDateTime", value: LocalDateTime(utc: window.end).description + "Z"),
        ]
        var next = components?.url
        double.resetCounters()
        let cpuBefore = Self.processCPU()
        let doubleBefore = try double.serverCPUSeconds()
        let start = ContinuousClock.now
        while let url = next {
            let response = try await transport.send(HTTPRequestValue(method: "GET", url: url, headers: headers))
            pages.append(response.body)
            guard response.isSuccess else { throw GraphBenchmarkError("baseline page: HTTP \(response.status)") }
            next = Self.nextLink(in: response.body).flatMap(URL.init(string:))
        }
        let elapsed = ContinuousClock.now - start
        let doubleCPU = try double.serverCPUSeconds() - doubleBefore
        let served = double.counters
        let figures = Figures(
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            processCPU: Self.processCPU() - cpuBefore, doubleCPU: doubleCPU, requests: served.requests, bytes: served.bytesSent,
            report: CalendarSyncReport())
        return (figures, pages)
    }

    /// The `@odata.nextLink` at the end of a page, found without parsing the page.
    static func nextLink(in body: Data) -> String? {
        let tail = String(decoding: body.suffix(4096), as: UTF8.self)
        guard let range = tail.range(of: "\"@odata.nextLink\":\"") else { return nil }
        return tail[range.upperBound...].prefix { $0 != "\"" }.description
    }

    func line(_ label: String, _ figures: Figures, events: Int) -> String {
        String(
            format: "%@: %.2f s wall, %d requests (incl. token renewal), %.1f MB received; CPU: Steno %.2f s (%.1f µs per event), double %.2f s",
            label, figures.seconds, figures.requests, Double(figures.bytes) / 1e6, figures.stenoCPU,
            figures.stenoCPU / Double(max(1, events)) * 1e6, figures.doubleCPU)
    }

    /// User + system CPU seconds of this process.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// A benchmark that could not run.
struct GraphBenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
