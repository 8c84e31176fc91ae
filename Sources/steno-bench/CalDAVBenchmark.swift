#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Logging
import StenoCalendar
import StenoCore
import StenoService
import StenoStore
import StenoTesting

/// `steno-bench caldav`: a full sync of a 10,000-event calendar from a local Radicale with its
/// default limits, and an incremental sync after 10 changes, each beside vdirsyncer syncing the
/// same collection to a filesystem storage in the same run. Steno writes into a real catalog
/// (SQLite) through the service's mirror, so the figures include the database writes.
struct CalDAVBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caldav",
        abstract: "CalDAV full and incremental sync vs. vdirsyncer (targets: full faster; incremental < 1 s, ≤ 5 requests).")

    @Option(help: "Events in the calendar.") var events = 10_000
    @Option(help: "Changes between the full and the incremental sync (modified, added, deleted).") var changes = 10
    @Option(help: "Hrefs per calendar-multiget REPORT.") var chunk = 250
    @Option(help: "calendar-multiget REPORTs in flight.") var concurrency = 2
    @Flag(help: "Skip vdirsyncer (Steno's figures only).") var skipVdirsyncer = false

    func run() throws {
        let settings = Settings(events: events, changes: changes, chunk: chunk, concurrency: concurrency, vdirsyncer: !skipVdirsyncer)
        let outcome = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                try await CalDAVBenchmarkRun(settings: settings).run()
            } catch {
                outcome.set(error)
            }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
    }

    struct Settings: Sendable {
        var events: Int
        var changes: Int
        var chunk: Int
        var concurrency: Int
        var vdirsyncer: Bool
    }

    /// The error of the async run, handed back to the synchronous command.
    final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: (any Error)?
        func set(_ error: any Error) { lock.withLock { stored = error } }
        var error: (any Error)? { lock.withLock { stored } }
    }
}

/// One run of the benchmark.
struct CalDAVBenchmarkRun {
    let settings: CalDAVBenchmark.Settings
    let user = "bench"
    let password = "bench-password"
    let calendarName = "team"
    let now = Date()

    func run() async throws {
        print("writing \(settings.events) events into Radicale's storage…")
        let generationStart = Date()
        let radicale = try RadicaleServer(users: [user: password]) { storage in
            try writeCollection(into: storage + "/collection-root/\(user)/\(calendarName)")
        }
        defer { radicale.shutdown() }
        print(String(format: "generated in %.1f s; Radicale (default limits) on %@", Date().timeIntervalSince(generationStart),
                     radicale.baseURL.absoluteString))
        let transport = HTTPTransport()
        do {
            try await measure(radicale: radicale, transport: transport)
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    private func measure(radicale: RadicaleServer, transport: HTTPTransport) async throws {
        let collection = radicale.collectionURL(user: user, name: calendarName)
        let authorization = HTTPAuthorization.basic(user: user, password: password)
        // The events were written straight into Radicale's storage, bypassing PUT: Radicale
        // parses every item on first access and builds its item cache, and builds the sync
        // history (which PUT maintains item by item) on the first sync-token request. Bring it
        // to the state of a server whose events arrived by PUT, untimed: an item listing
        // (what vdirsyncer needs warm) and the collection's sync token (what Steno needs).
        let warmStart = Date()
        for body in [
            #"<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>"#,
            #"<d:propfind xmlns:d="DAV:"><d:prop><d:sync-token/></d:prop></d:propfind>"#,
        ].enumerated() {
            let warm = try await transport.send(HTTPRequestValue(
                method: "PROPFIND", url: collection, headers: [("Authorization", authorization), ("Depth", body.offset == 0 ? "1" : "0")],
                body: Data(body.element.utf8)))
            guard warm.status == 207 else { throw RadicaleServerError("warm-up PROPFIND → HTTP \(warm.status): \(warm.text.prefix(300))") }
        }
        print(String(format: "Radicale item cache and sync history built in %.1f s (untimed, as if the events had been PUT)\n",
                     Date().timeIntervalSince(warmStart)))

        // Steno: a real catalog, the service's mirror.
        let folder = radicale.root + "/steno"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: folder + "/catalog.sqlite")
        let owner = try await catalog.addUser(UserDraft(name: "bench", emails: ["bench@example.com"]))
        let stored = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .caldav, ownerID: owner.id, displayName: "bench",
                settings: ["url": radicale.baseURL.absoluteString, "user": user]), now: now)
        let provider = CalDAVProvider(
            transport: transport,
            options: CalDAVProvider.Options(
                multigetChunkSize: settings.chunk, concurrentRequests: settings.concurrency,
                defaultTimeZone: TimeZone(identifier: "UTC") ?? .current))
        let mirror = TimedMirror(CatalogCalendarMirror(store: catalog, accountID: stored.id, secrets: nil))
        func stenoSync() async throws -> (seconds: Double, report: CalendarSyncReport) {
            var logger = Logger(label: "steno-bench.caldav")
            logger.logLevel = .error
            let context = CalendarSyncContext(
                account: try await catalog.account(id: stored.id), credentials: CalendarCredentials(password: password),
                window: ICalendar.mirroredWindow(around: now), mirror: mirror, logger: logger)
            mirror.reset()
            let start = ContinuousClock.now
            let report = try await provider.sync(context)
            let seconds = (ContinuousClock.now - start).seconds
            print(String(format: "  (of which %.2f s in the mirror's %d transactions)", mirror.applySeconds, mirror.applyCount))
            return (seconds, report)
        }

        let stenoFull = try await stenoSync()
        let remoteID = "/\(user)/\(calendarName)/"
        let mirroredResources = try await catalog.resourceTags(accountID: stored.id, calendarRemoteID: remoteID).count
        print(String(format: "Steno full sync: %.2f s, %d requests, %.1f MB, %d resources mirrored (%d occurrences inserted)",
                     stenoFull.seconds, stenoFull.report.requests, Double(stenoFull.report.bytesReceived) / 1e6, mirroredResources,
                     stenoFull.report.changes.inserted))

        var vdirsyncer: VdirsyncerRun?
        var vdirsyncerFull: Double?
        if settings.vdirsyncer {
            vdirsyncer = try VdirsyncerRun(folder: radicale.root + "/vdirsyncer", collection: collection, user: user, password: password)
            if let run = vdirsyncer {
                vdirsyncerFull = try run.sync(expecting: settings.events)
                if vdirsyncerFull == nil {
                    print("vdirsyncer failed against Radicale's default limits:\n\(run.lastOutput.suffix(600))")
                }
            }
            if let seconds = vdirsyncerFull { print(String(format: "vdirsyncer full sync: %.2f s", seconds)) }
        }

        // The changes, as a calendar app makes them.
        let edits = try await makeChanges(transport: transport, collection: collection, authorization: authorization)
        print("made \(edits.modified) modifications, \(edits.added) additions, \(edits.deleted) deletions")

        let stenoIncremental = try await stenoSync()
        let afterResources = try await catalog.resourceTags(accountID: stored.id, calendarRemoteID: remoteID).count
        print(String(format: "Steno incremental sync: %.3f s, %d requests, %.1f KB, %d resources mirrored",
                     stenoIncremental.seconds, stenoIncremental.report.requests, Double(stenoIncremental.report.bytesReceived) / 1e3,
                     afterResources))
        var vdirsyncerIncremental: Double?
        if let run = vdirsyncer, vdirsyncerFull != nil {
            vdirsyncerIncremental = try run.sync(expecting: settings.events + edits.added - edits.deleted)
            if let seconds = vdirsyncerIncremental { print(String(format: "vdirsyncer incremental sync: %.2f s", seconds)) }
        }
        let expectedResources = settings.events + edits.added - edits.deleted
        let consistent = afterResources == expectedResources && mirroredResources == settings.events
        print("")
        printTable(
            full: stenoFull, incremental: stenoIncremental, vdirsyncerFull: vdirsyncerFull, vdirsyncerIncremental: vdirsyncerIncremental,
            consistent: consistent, expected: expectedResources, found: afterResources)
    }

    private func printTable(
        full: (seconds: Double, report: CalendarSyncReport), incremental: (seconds: Double, report: CalendarSyncReport),
        vdirsyncerFull: Double?, vdirsyncerIncremental: Double?, consistent: Bool, expected: Int, found: Int
    ) {
        func cell(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        func row(_ cells: [String]) { print(cell(cells[0], 34) + cells.dropFirst().map { cell($0, 16) }.joined()) }
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.3f s", $0) } ?? "n/a" }
        func ratio(_ steno: Double, _ other: Double?) -> String { other.map { String(format: "%.1f× faster", $0 / steno) } ?? "n/a" }
        row(["", "Steno", "vdirsyncer", "ratio", "requests", "received"])
        row([
            "full sync (\(settings.events) events)", seconds(full.seconds), seconds(vdirsyncerFull), ratio(full.seconds, vdirsyncerFull),
            "\(full.report.requests)", String(format: "%.1f MB", Double(full.report.bytesReceived) / 1e6),
        ])
        row([
            "incremental (\(settings.changes) changes)", seconds(incremental.seconds), seconds(vdirsyncerIncremental),
            ratio(incremental.seconds, vdirsyncerIncremental), "\(incremental.report.requests)",
            String(format: "%.1f KB", Double(incremental.report.bytesReceived) / 1e3),
        ])
        print("")
        let fullPass = vdirsyncerFull.map { full.seconds < $0 }
        print("full sync faster than vdirsyncer: \(fullPass.map { $0 ? "PASS" : "FAIL" } ?? "n/a (vdirsyncer did not run)")")
        print("incremental sync under 1 s: \(incremental.seconds < 1 ? "PASS" : "FAIL")")
        print("incremental sync at most 5 HTTP requests: \(incremental.report.requests <= 5 ? "PASS" : "FAIL")")
        print("mirror holds every resource (\(found) of \(expected)): \(consistent ? "PASS" : "FAIL")")
    }

    // MARK: - Data

    /// Writes the collection's props and one `.ics` file per event straight into Radicale's storage.
    private func writeCollection(into folder: String) throws {
        try RadicaleServer.writeCalendarProps(folder: folder, displayName: "Team", color: "#3366CCFF")
        let window = ICalendar.mirroredWindow(around: now, daysBack: 170, daysAhead: 355)
        let span = window.duration
        var generator = BenchRandom(seed: 42)
        for index in 0..<settings.events {
            let offset = Double(generator.next() % UInt64(span / 900)) * 900
            let start = window.start.addingTimeInterval(offset)
            let ics = Self.event(index: index, start: start, recurring: index % 20 == 0, summary: "Meeting \(index)")
            try Data(ics.utf8).write(to: URL(fileURLWithPath: folder + "/event-\(index).ics"))
        }
    }

    /// A meeting of about 1 KB: organizer, three attendees, a description and a video link;
    /// every twentieth a weekly series.
    static func event(index: Int, start: Date, recurring: Bool, summary: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Steno//Bench//EN", "BEGIN:VEVENT", "UID:bench-\(index)@steno.test",
            "DTSTAMP:20260101T000000Z", "DTSTART:\(formatter.string(from: start))",
            "DTEND:\(formatter.string(from: start.addingTimeInterval(1800 + Double(index % 4) * 900)))", "SUMMARY:\(summary)",
            "DESCRIPTION:Agenda: status of project \(index % 97)\\, risks\\, next steps. Join the call from the link below.",
            "LOCATION:Room \(index % 12)", "URL:https://meet.example.com/\(index)",
            "ORGANIZER;CN=Organizer \(index % 50):mailto:organizer\(index % 50)@example.com",
            "ATTENDEE;CN=Zoë Müller;PARTSTAT=ACCEPTED:mailto:zoe@example.com",
            "ATTENDEE;CN=Person \(index % 300);PARTSTAT=NEEDS-ACTION:mailto:person\(index % 300)@example.com",
            "ATTENDEE;CN=東京 Office;CUTYPE=ROOM:mailto:tokyo-room@example.com",
        ]
        if recurring { lines.append("RRULE:FREQ=WEEKLY;COUNT=20") }
        lines += ["END:VEVENT", "END:VCALENDAR"]
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Modifies, adds and deletes events through CalDAV (about 40/30/30 %).
    private func makeChanges(transport: HTTPTransport, collection: URL, authorization: String) async throws
        -> (modified: Int, added: Int, deleted: Int)
    {
        let modified = settings.changes * 4 / 10
        let added = settings.changes * 3 / 10
        let deleted = settings.changes - modified - added
        func send(_ method: String, _ name: String, _ body: String?) async throws {
            var headers = [("Authorization", authorization)]
            if body != nil { headers.append(("Content-Type", "text/calendar; charset=utf-8")) }
            let response = try await transport.send(HTTPRequestValue(
                method: method, url: collection.appendingPathComponent(name), headers: headers, body: body.map { Data($0.utf8) }))
            guard response.isSuccess else { throw RadicaleServerError("\(method) \(name) → HTTP \(response.status)") }
        }
        let soon = now.addingTimeInterval(86_400)
        for index in 0..<modified {
            try await send("PUT", "event-\(index * 7 + 1).ics", Self.event(index: index * 7 + 1, start: soon, recurring: false, summary: "Moved \(index)"))
        }
        for index in 0..<added {
            let number = settings.events + index
            try await send("PUT", "event-\(number).ics", Self.event(index: number, start: soon, recurring: false, summary: "New \(index)"))
        }
        for index in 0..<deleted {
            try await send("DELETE", "event-\(index * 11 + 3).ics", nil)
        }
        return (modified, added, deleted)
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

/// A deterministic generator for the corpus (SplitMix64).
struct BenchRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
