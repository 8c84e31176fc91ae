#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Three daemons on one PostgreSQL catalog and one inbox, killed while they ingest: every file
/// still becomes exactly one ready, linked recording, no job is left running, and a cron
/// schedule that every daemon sees fires once per fire time.
@Suite(
    "Three PostgreSQL daemons through kills", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: PostgresCluster.isInstalled), "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresThreeDaemonsEndToEndTests {
    static let meetings = 20
    static let files = 2000

    static func config(_ url: String) -> String {
        PostgresDaemonsEndToEndTests.config(url) + """

            [calendars]
            sync_interval_minutes = 600
            [[schedule]]
            kind = "links.revalidate"
            cron = "* * * * *"
            """
    }

    let day = ICalendarText.yesterday

    func start(ofMeeting index: Int) -> Date { day.addingTimeInterval(Double(index + 1) * 3600) }

    /// Alice's calendar: one hour-long meeting she organises every hour of the day.
    func calendar() -> String {
        ICalendarText.calendar(
            (0..<Self.meetings).flatMap { index in
                ICalendarText.event(
                    uid: "meeting-\(index)", title: "Meeting \(index)", start: start(ofMeeting: index),
                    end: start(ofMeeting: index).addingTimeInterval(3600), organizer: "alice@example.com",
                    attendees: ["ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED;CN=Bob:mailto:bob@example.com"])
            })
    }

    /// Writes files `range` into alice's folder, each with a sidecar that places it inside one
    /// of her meetings.
    func drop(_ range: Range<Int>, into folder: String) throws {
        let formatter = ISO8601DateFormatter()
        for index in range {
            let recordedAt = start(ofMeeting: index % Self.meetings).addingTimeInterval(300 + Double(index / Self.meetings))
            try Data(#"{"recordedAt": "\#(formatter.string(from: recordedAt))"}"#.utf8)
                .write(to: URL(fileURLWithPath: "\(folder)/take-\(index).json"))
            try IngestionEndToEndTests.wav(seed: index).write(to: URL(fileURLWithPath: "\(folder)/take-\(index).wav"))
        }
    }

    /// Every page of a listing, following its cursor (bounded).
    func all<Item>(_ page: (String?) throws -> Page<Item>) throws -> [Item] {
        var items: [Item] = []
        var cursor: String?
        for _ in 0..<1000 {
            let next = try page(cursor)
            items += next.items
            guard let following = next.nextCursor else { return items }
            cursor = following
        }
        Issue.record("a listing did not end within 1,000 pages")
        return items
    }

    @Test func threeDaemonsIngestEveryFileOnceThroughKillsAndLinkThem() async throws {
        let cluster = try await PostgresCluster.shared()
        let url = cluster.url(database: try await cluster.createDatabase())
        let shared = NSTemporaryDirectory() + "steno-pg3-inbox-" + UUID().uuidString
        let folder = shared + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: shared) }

        let watcher = try TestDaemon(config: Self.config(url), inbox: shared)
        defer { watcher.shutdown() }
        #expect(try steno(watcher, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let source = watcher.root + "/alice.ics"
        try calendar().write(toFile: source, atomically: true, encoding: .utf8)
        let added = try steno(watcher, ["accounts", "add", "ics", source, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")
        #expect(PostgresDaemonsEndToEndTests.waitUntil(30) { watcher.log.contains("this daemon watches the inbox") }, "\(watcher.log)")
        let twiceKilled = try TestDaemon(config: Self.config(url), inbox: shared)
        defer { twiceKilled.shutdown() }
        let survivor = try TestDaemon(config: Self.config(url), inbox: shared)
        defer { survivor.shutdown() }
        let client = try survivor.client()
        func status() throws -> SystemStatus { try client.call(StenoMethods.systemStatus, NoParams()) }
        func recordingCount() throws -> Int64 { try status().counts["recordings"] ?? 0 }

        try drop(0..<(Self.files / 2), into: folder)
        for threshold in [Int64(Self.files / 8), Int64(Self.files / 4)] {
            #expect(try PostgresDaemonsEndToEndTests.waitUntil(600) { try recordingCount() >= threshold }, "\(survivor.log)")
            _ = twiceKilled.stop(signal: SIGKILL)
            try twiceKilled.start(timeout: 120)
        }
        #expect(try PostgresDaemonsEndToEndTests.waitUntil(600) { try recordingCount() >= Int64(Self.files * 3 / 8) }, "\(survivor.log)")
        // The watching daemon dies; the second half lands while nobody watches, and whichever
        // daemon takes the inbox over finds it.
        _ = watcher.stop(signal: SIGKILL)
        try drop((Self.files / 2)..<Self.files, into: folder)
        let settled = try PostgresDaemonsEndToEndTests.waitUntil(600) {
            let now = try status()
            return now.counts["recordings"] == Int64(Self.files) && now.queueDepth == 0
        }
        let reached = try recordingCount()
        try #require(settled, "recordings: \(reached); survivor: \(survivor.log.suffix(4000))")
        #expect(survivor.log.contains("this daemon watches the inbox") || twiceKilled.log.contains("this daemon watches the inbox"))

        let recordings = try all { try client.call(StenoMethods.recordingsList, RecordingListParams(cursor: $0, limit: 500)) }
        #expect(recordings.count == Self.files)
        #expect(recordings.allSatisfy { $0.status == .ready }, "\(recordings.filter { $0.status != .ready }.prefix(5))")
        let paths = recordings.flatMap { $0.paths.map(\.path) }
        #expect(Set(paths).count == Self.files && paths.count == Self.files, "each file is one recording")
        // No ingest or link job is left running; the minute schedule may be firing just now.
        let running = try client.call(StenoMethods.jobsList, JobListParams(state: .running, limit: 100)).items
            .filter { !($0.uniqueKey ?? "").hasPrefix("schedule:") }
        #expect(running.isEmpty, "\(running.map { ($0.kind, $0.leaseOwner ?? "") })")
        let linked = try all { try client.call(StenoMethods.linksList, LinkListParams(state: .linked, cursor: $0, limit: 500)) }
        #expect(linked.count == Self.files, "every recording is linked to the meeting it was made in")

        // Every daemon sees each fire time of the minute schedule; only one enqueues it.
        let fired = try PostgresDaemonsEndToEndTests.waitUntil(150) {
            !(try client.call(StenoMethods.jobsList, JobListParams(kind: "links.revalidate", limit: 100)).items.isEmpty)
        }
        #expect(fired, "the minute schedule fired")
        let revalidations = try all { try client.call(StenoMethods.jobsList, JobListParams(kind: "links.revalidate", cursor: $0, limit: 100)) }
        #expect(Set(revalidations.map(\.runAt)).count == revalidations.count, "\(revalidations.map(\.runAt))")
    }
}
