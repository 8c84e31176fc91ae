#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoService
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
    @Option(help: "Hrefs per calendar-multiget REPORT.") var chunk = 1000
    @Option(help: "calendar-multiget REPORTs in flight.") var concurrency = 2
    @Option(help: "Repetitions of the full and incremental syncs (min and median printed).") var runs = 1
    @Flag(help: "Skip vdirsyncer (Steno's figures only).") var skipVdirsyncer = false
    @Option(
        help: "Instead: spread the events (weekly series and single) over this many years up to now and compare the first sync's bytes and requests, listed by the window's time range, with the full download (target: ≥ 5× fewer bytes).")
    var historyYears: Int?

    func run() throws {
        let settings = Settings(
            events: events, changes: changes, chunk: chunk, concurrency: concurrency, runs: runs, vdirsyncer: !skipVdirsyncer,
            historyYears: historyYears)
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
        var runs: Int
        var vdirsyncer: Bool
        var historyYears: Int?
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
            let folder = storage + "/collection-root/\(user)/\(calendarName)"
            if let years = settings.historyYears {
                try writeHistory(into: folder, years: years)
            } else {
                try writeCollection(into: folder)
            }
        }
        defer { radicale.shutdown() }
        print(String(format: "generated in %.1f s; Radicale (default limits) on %@", Date().timeIntervalSince(generationStart),
                     radicale.baseURL.absoluteString))
        // Radicale parses all 10,000 items on first touch (the untimed warm-up): minutes on a loaded machine.
        let transport = HTTPTransport(requestTimeout: .seconds(900))
        do {
            if settings.historyYears != nil {
                try await measureFirstSyncs(radicale: radicale, transport: transport)
            } else {
                try await measure(radicale: radicale, transport: transport)
            }
        } catch {
            try? await transport.shutdown()
            throw error
        }
        try await transport.shutdown()
    }

    private func measure(radicale: RadicaleServer, transport: HTTPTransport) async throws {
        let collection = radicale.collectionURL(user: user, name: calendarName)
        let authorization = HTTPAuthorization.basic(user: user, password: password)
        try await warmUp(collection: collection, authorization: authorization, transport: transport)

        var vdirsyncerWorks = settings.vdirsyncer
        var steno = (full: [SyncSample](), incremental: [SyncSample]())
        var vdirsyncer = (full: [Double](), incremental: [Double]())
        var expected = settings.events
        var consistent = true
        for run in 0..<max(1, settings.runs) {
            // Steno: a fresh catalog per run, the service's mirror.
            let target = try await StenoTarget(folder: radicale.root + "/steno-\(run)", radicale: radicale, run: self, transport: transport)
            let full = try await target.sync(radicale: radicale, password: password)
            let mirrored = try await target.resourceCount()
            consistent = consistent && mirrored == expected
            steno.full.append(full)
            print("run \(run + 1): Steno full sync \(full.line), \(mirrored) resources mirrored (\(full.report.changes.inserted) occurrences)")

            var vdir: VdirsyncerRun?
            if vdirsyncerWorks {
                let run = try VdirsyncerRun(folder: radicale.root + "/vdirsyncer-\(run)", collection: collection, user: user, password: password)
                let serverCPU = radicale.cpuSeconds ?? 0
                if let seconds = try run.sync(expecting: expected) {
                    vdirsyncer.full.append(seconds)
                    vdir = run
                    print(String(format: "       vdirsyncer full sync %.2f s; CPU: Radicale %.2f s", seconds, (radicale.cpuSeconds ?? 0) - serverCPU))
                } else {
                    vdirsyncerWorks = false
                    print("vdirsyncer failed against Radicale's default limits:\n\(run.lastOutput.suffix(600))")
                }
            }

            // The changes, as a calendar app makes them.
            let edits = try await makeChanges(run: run, transport: transport, collection: collection, authorization: authorization)
            expected += edits.added - edits.deleted
            let incremental = try await target.sync(radicale: radicale, password: password)
            let after = try await target.resourceCount()
            consistent = consistent && after == expected
            steno.incremental.append(incremental)
            print("       \(edits.modified)/\(edits.added)/\(edits.deleted) modified/added/deleted; Steno incremental \(incremental.line)")
            if let vdir, let seconds = try vdir.sync(expecting: expected) {
                vdirsyncer.incremental.append(seconds)
                print(String(format: "       vdirsyncer incremental sync %.2f s", seconds))
            }
        }
        print("")
        printTable(steno: steno, vdirsyncer: vdirsyncer, consistent: consistent)
    }

    /// Brings Radicale to the state of a server whose events arrived by PUT, untimed.
    func warmUp(collection: URL, authorization: String, transport: HTTPTransport) async throws {
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
    }

    private func printTable(
        steno: (full: [SyncSample], incremental: [SyncSample]), vdirsyncer: (full: [Double], incremental: [Double]), consistent: Bool
    ) {
        func cell(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        func row(_ cells: [String]) { print(cell(cells[0], 30) + cells.dropFirst().map { cell($0, 17) }.joined()) }
        func seconds(_ values: [Double]) -> String {
            guard let low = values.min(), let median = values.median else { return "n/a" }
            return values.count == 1 ? String(format: "%.3f s", low) : String(format: "%.2f / %.2f s", low, median)
        }
        func ratio(_ steno: [Double], _ other: [Double]) -> String {
            guard let ours = steno.median, let theirs = other.median else { return "n/a" }
            return String(format: "%.2f× faster", theirs / ours)
        }
        print("\(max(1, settings.runs)) run(s); times are min / median")
        row(["", "Steno", "vdirsyncer", "ratio (median)", "requests", "Steno CPU", "Radicale CPU"])
        for (name, samples, other) in [
            ("full sync (\(settings.events) events)", steno.full, vdirsyncer.full),
            ("incremental (\(settings.changes) changes)", steno.incremental, vdirsyncer.incremental),
        ] {
            row([
                name, seconds(samples.map(\.seconds)), seconds(other), ratio(samples.map(\.seconds), other),
                samples.last.map { "\($0.report.requests)" } ?? "-", seconds(samples.map(\.stenoCPU)), seconds(samples.map(\.radicaleCPU)),
            ])
        }
        print("")
        let fullPass = steno.full.map(\.seconds).median.flatMap { ours in vdirsyncer.full.median.map { ours < $0 } }
        let incremental = steno.incremental.map(\.seconds).max() ?? .infinity
        let requests = steno.incremental.map(\.report.requests).max() ?? .max
        print("full sync faster than vdirsyncer: \(fullPass.map { $0 ? "PASS" : "FAIL" } ?? "n/a (vdirsyncer did not run)")")
        print("incremental sync under 1 s: \(incremental < 1 ? "PASS" : "FAIL")")
        print("incremental sync at most 5 HTTP requests: \(requests <= 5 ? "PASS" : "FAIL")")
        print("mirror holds every resource after every sync: \(consistent ? "PASS" : "FAIL")")
    }

    // MARK: - Data

    /// Writes the collection's props and one `.ics` file per event straight into Radicale's storage.
    private func writeCollection(into folder: String) throws {
        try RadicaleServer.writeCalendarProps(folder: folder, displayName: "Team", color: "#3366CCFF")
        let window = ICalendar.mirroredWindow(around: now, daysBack: 170, daysAhead: 355)
        let span = window.duration
        var generator = SeededRandom(seed: 42)
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

    /// Modifies, adds and deletes events through CalDAV (about 40/30/30 %); each run deletes
    /// and adds other events than the runs before.
    private func makeChanges(run: Int, transport: HTTPTransport, collection: URL, authorization: String) async throws
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
            try await send(
                "PUT", "event-\(index * 7 + 1).ics", Self.event(index: index * 7 + 1, start: soon, recurring: false, summary: "Moved \(run).\(index)"))
        }
        for index in 0..<added {
            let number = settings.events + run * added + index
            try await send("PUT", "event-\(number).ics", Self.event(index: number, start: soon, recurring: false, summary: "New \(index)"))
        }
        for index in 0..<deleted {
            try await send("DELETE", "event-\(index * 11 + 3 + run * 50).ics", nil)
        }
        return (modified, added, deleted)
    }
}
