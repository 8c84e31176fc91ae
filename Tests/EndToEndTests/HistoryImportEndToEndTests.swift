import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// An archive import as a team adopting Steno makes it: 2,000 recordings spread over two years
/// before the mirrored window, their owner with an ICS URL account, a CalDAV (Radicale)
/// account and a Microsoft account (the Graph double, her own calendar and one shared with
/// her). Each account's history is asked for once per merged span (Graph: once per calendar
/// and span), counted where the requests arrive (Radicale's log, the ICS server's and the
/// double's request logs), and the old meetings link.
@Suite(
    "Importing two years of recordings asks each account once per merged span", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: RadicaleServer.isInstalled), "needs `pip install radicale`"))
struct HistoryImportEndToEndTests {
    static let config = """
        [watcher]
        settle_seconds = 3600
        [jobs]
        workers = 2
        [calendars]
        sync_interval_minutes = 600
        member_networks = ["127.0.0.1"]
        """
    static let recordings = 2_000

    let now = Date()

    /// The start of recording `index`: every 8.76 hours from 930 days back (all before the
    /// 180-day window), on a whole minute.
    func start(_ index: Int) -> Date {
        let offset = 930 * 86_400 - Double(index) * (730 * 86_400 / Double(Self.recordings))
        return Date(timeIntervalSince1970: ((now.timeIntervalSince1970 - offset) / 60).rounded(.down) * 60)
    }

    func event(_ uid: String, _ title: String, at start: Date) -> [String] {
        ICalendarText.event(uid: uid, title: title, start: start.addingTimeInterval(-120), end: start.addingTimeInterval(3000),
                            organizer: "alice@example.com", attendees: [])
    }

    /// Rows of `sql` in the daemon's catalog, read with the sqlite3 shell.
    func query(_ daemon: TestDaemon, _ sql: String) throws -> [String] {
        let result = try runCommand("/usr/bin/sqlite3", ["-readonly", daemon.dataDirectory + "/catalog.sqlite", sql])
        guard result.status == 0 else { throw TestDaemonError("sqlite3: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func twoYearsOfRecordingsCostOneRequestPerAccountAndSpan() throws {
        // Meetings at three of the recordings' times in each account.
        let icsEvents = [10, 900, 1990].map { event("ics-\($0)", "Archive \($0)", at: start($0)) }
        let ics = try ScriptedHTTPServer(rules: [
            .init(method: "GET", path: "/archive.ics", status: 200, headers: ["Content-Type": "text/calendar"],
                  body: ICalendarText.calendar(icsEvents.flatMap { $0 })),
        ])
        defer { ics.shutdown() }
        let radicale = try RadicaleServer(users: ["alice": "secret"], extraConfig: "[logging]\nlevel = info") { storage in
            let folder = storage + "/collection-root/alice/work"
            try RadicaleServer.writeCalendarProps(folder: folder, displayName: "Work")
            for index in [20, 1000, 1980] {
                try ICalendarText.calendar(event("dav-\(index)", "Team \(index)", at: start(index)))
                    .write(toFile: folder + "/dav-\(index).ics", atomically: true, encoding: .utf8)
            }
        }
        defer { radicale.shutdown() }
        let graph = try GraphDouble()
        defer { graph.shutdown() }
        graph.scriptDeviceFlow(.init(pendingPolls: 1, outcome: .approve(user: "alice@contoso.com")), interval: 1)
        graph.addCalendar(GraphDouble.Calendar(id: "cal-bob", name: "Calendar", owner: "bob@contoso.com", canEdit: false))
        for index in [30, 1010, 1970] {
            let at = start(index)
            graph.put(
                GraphDouble.Event(
                    id: "graph-\(index)", iCalUId: "ical-graph-\(index)@contoso.com", subject: "Graph \(index)", start: at.addingTimeInterval(-120),
                    end: at.addingTimeInterval(3000), organizer: .init(email: "bob@contoso.com"),
                    attendees: [.init("bob@contoso.com", response: "organizer"), .init("alice@contoso.com", name: "Alice", response: "accepted")]),
                calendar: index == 1010 ? "cal-bob" : nil)
        }

        let daemon = try TestDaemon(config: Self.config)
        defer { daemon.shutdown() }
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com", "--email", "alice@contoso.com"]).status == 0)
        let passwordFile = daemon.root + "/caldav-password"
        try "secret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let dav = try steno(daemon, [
            "accounts", "add", "caldav", "--url", radicale.baseURL.absoluteString, "--user", "alice", "--password-file", passwordFile,
            "--owner", "alice", "--wait",
        ])
        try #require(dav.status == 0, "\(dav.stderr)")
        let icsAdded = try steno(daemon, ["accounts", "add", "ics", ics.baseURL.absoluteString + "archive.ics", "--owner", "alice", "--wait"])
        try #require(icsAdded.status == 0, "\(icsAdded.stderr)")
        let graphAdded = try steno(daemon, [
            "accounts", "add", "graph", "--client-id", "steno-test-client", "--authority", graph.baseURL.absoluteString,
            "--graph-url", graph.graphURL.absoluteString, "--owner", "alice", "--wait",
        ])
        try #require(graphAdded.status == 0, "\(graphAdded.stdout) \(graphAdded.stderr)")

        func radicaleReports() -> Int { radicale.log.components(separatedBy: "REPORT request for").count - 1 }
        func icsGets() -> Int { ics.requests.filter { $0.method == "GET" }.count }
        /// Graph's history reads: `calendarView` (not its delta) of a calendar for a span.
        func graphViews() -> [String] {
            graph.requests.filter { $0.uri.contains("/calendarView?") }.map { request in
                let components = URLComponents(string: "http://double" + request.uri)
                return (components?.path ?? "") + "|" + (components?.queryItems?.first { $0.name == "startDateTime" }?.value ?? "")
            }
        }
        let (reportsBefore, getsBefore, viewsBefore) = (radicaleReports(), icsGets(), graphViews().count)

        let folder = daemon.inboxDirectory + "/alice/archive"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let formatter = ISO8601DateFormatter()
        for index in 0..<Self.recordings {
            let name = String(format: "%@/r%04d", folder, index)
            try Data(#"{"recordedAt": "\#(formatter.string(from: start(index)))"}"#.utf8).write(to: URL(fileURLWithPath: name + ".json"))
            try IngestionEndToEndTests.wav(seed: index).write(to: URL(fileURLWithPath: name + ".wav"))
        }
        let ingested = try runCommand(
            TestDaemon.executable(named: "steno"), ["--socket", daemon.socketPath, "ingest", folder, "--wait", "--timeout", "900"], timeout: 960)
        try #require(ingested.status == 0, "\(ingested.stdout) \(ingested.stderr)")
        // Linking follows ingestion: wait (bounded) until no link job is left.
        let settled = try poll(timeout: 600, {
            try query(daemon, "SELECT count(*) FROM jobs WHERE kind = 'link' AND state IN ('queued', 'running', 'failed')").first ?? ""
        }, until: { $0 == "0" })
        try #require(settled == "0")

        let linked = try query(daemon, """
            SELECT m.title FROM links l JOIN meetings m ON m.id = l.meeting_id WHERE l.state = 'linked' ORDER BY m.title
            """)
        let diagnosis = [
            "SELECT count(*) FROM recordings", "SELECT state, count(*) FROM links GROUP BY state",
            "SELECT kind, state, count(*) FROM jobs GROUP BY kind, state", "SELECT title, starts_at, deleted_at FROM events",
        ].map { (try? query(daemon, $0)) ?? [] }
        #expect(
            linked == ["Archive 10", "Archive 1990", "Archive 900", "Graph 1010", "Graph 1970", "Graph 30", "Team 1000", "Team 1980", "Team 20"],
            "\(linked); \(diagnosis)")

        // Per calendar: the spans fetched do not overlap (none asked twice), and the requests
        // are one per span (CalDAV: one calendar-query each; ICS: at most one GET per span).
        let spans = try query(daemon, """
            SELECT a.provider, s.calendar_id, s.starts_at, s.ends_at FROM calendar_history_spans s JOIN calendar_accounts a ON a.id = s.account_id
            WHERE s.fetched_at IS NOT NULL ORDER BY a.provider, s.calendar_id, s.starts_at
            """).map { $0.split(separator: "|").map(String.init) }
        /// The spans fetched of the provider's calendars, each calendar's in time order.
        func fetched(_ provider: String) -> [(calendar: String, start: Int64, end: Int64)] {
            spans.filter { $0.first == provider && $0.count == 4 }.compactMap { row in
                Int64(row[2]).flatMap { start in Int64(row[3]).map { (row[1], start, $0) } }
            }
        }
        for provider in ["caldav", "ics", "graph"] {
            let rows = fetched(provider)
            #expect(!rows.isEmpty, "\(provider): no history fetched")
            #expect(
                zip(rows, rows.dropFirst()).allSatisfy { $0.calendar != $1.calendar || $0.end <= $1.start }, "\(provider): spans asked twice: \(rows)")
        }
        let reports = radicaleReports() - reportsBefore
        let gets = icsGets() - getsBefore
        #expect(reports == fetched("caldav").count, "Radicale: \(reports) REPORTs for \(fetched("caldav").count) spans")
        #expect(gets >= 1 && gets <= fetched("ics").count, "ICS: \(gets) GETs for \(fetched("ics").count) spans")
        // Graph: one calendarView per calendar (hers and Bob's shared one) and span, none twice.
        let views = Array(graphViews().dropFirst(viewsBefore))
        #expect(views.count == Set(views).count, "Graph: a calendar's span asked twice: \(views)")
        #expect(Set(fetched("graph").map(\.calendar)).count == 2, "Graph: \(fetched("graph"))")
        #expect(views.count == fetched("graph").count, "Graph: \(views.count) calendarView requests for \(fetched("graph").count) spans of 2 calendars")
        // Two years in spans of at most 92 days, plus the gaps later batches filled: a few
        // dozen requests for 2,000 recordings.
        #expect(reports <= 40 && gets <= 40 && views.count <= 80, "\(reports) REPORTs, \(gets) GETs, \(views.count) calendarViews")
        print("""
            history import: \(Self.recordings) recordings, CalDAV \(reports) REPORTs for \(fetched("caldav").count) spans, \
            ICS \(gets) GETs for \(fetched("ics").count) spans, Graph \(views.count) calendarViews for \(fetched("graph").count) calendar spans
            """)
    }
}
