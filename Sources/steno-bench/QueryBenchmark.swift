import ArgumentParser
import Foundation
import GRDB
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoPostgres
import StenoSQLite
import StenoService
import StenoTesting

/// `steno-bench query`: every question the CLI asks, on the catalog `steno-bench link`
/// generates, answered by the daemon's own method handlers as an admin and as a member;
/// each beside the same fields of the same rows read by one plain indexed statement (the
/// floor) on the same database: SQLite's, or with `--postgres` PostgreSQL's.
struct QueryBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Meetings, recordings, links, attendees and search on a generated catalog, admin and member, p50/p99 against a plain-statement floor (targets: first pages < 100 ms p99, --all of 20,000 rows < 2 s, each within 3× of its floor).")

    @Option(help: "Size of the catalog as a share of 1,000,000 occurrences and 100,000 recordings (0.01 for a quick run).") var scale = 1.0
    @Option(help: "Users (each with one calendar account).") var users = 100
    @Option(help: "Meetings in the member's own calendar (shared with others' calendars).") var memberMeetings = 3000
    @Option(help: "Runs of each first page.") var runs = 30
    @Option(help: "Runs of each full listing.") var allRuns = 3
    @Option(help: "Where the generated catalogs are kept (shared with steno-bench link --reuse).") var directory = "/tmp/steno-bench-link"
    @Option(help: "Only the cases whose name contains this.") var only: String?
    @Flag(inversion: .prefixedNo, help: "Also time `steno … --all` against a stenod serving the catalog (release stenod and steno next to steno-bench).")
    var cli = true
    @Flag(help: "Answer from a copy of the catalog in a private PostgreSQL cluster, the floor read there too (no CLI cases).")
    var postgres = false

    var occurrences: Int { Int(1_000_000 * scale) }
    var recordings: Int { Int(100_000 * scale) }
    var linkTemplate: LinkBenchmark {
        get throws {
            try LinkBenchmark.parse([
                "--users", String(users), "--occurrences", String(occurrences), "--recordings", String(recordings), "--directory", directory,
                "--reuse",
            ])
        }
    }
    /// The generated catalog with the member's calendar and every recording linked.
    /// (`v2`: the member is invited in the organisers' copies, which a member's own copy of a
    /// meeting needs to join it.)
    var queryTemplate: String { "\(directory)/queries-v2-\(users)-\(occurrences)-\(recordings)-\(memberMeetings).sqlite" }

    func run() async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: queryTemplate) { try await makeQueryTemplate() }
        let working = directory + "/queries-working.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: working + suffix) }
        try FileManager.default.copyItem(atPath: queryTemplate, toPath: working)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: working + suffix) } }
        // Opening migrates the copy to this build's schema (new indexes included).
        let catalog = try await SQLiteCatalog.open(path: working)
        let floor = try DatabasePool(path: working)
        var cluster: PostgresCluster?
        defer { cluster?.shutdown() }
        var store: any CatalogStore = catalog
        var floorReader = QueryFloor.sqlite(floor)
        if postgres {
            let started = ContinuousClock.now
            let server = try await PostgresCluster.shared()
            cluster = server
            print("copying the catalog into a private PostgreSQL cluster…")
            let settings = try PostgresSettings.parse(url: server.socketURL(database: try await server.createDatabase(prefix: "steno_query")))
            var logger = Logger(label: "steno.bench.query")
            logger.logLevel = .warning
            let target = try await PostgresCatalog.open(settings, logger: logger)
            _ = try await target.copy(from: catalog) { table, rows in print("  \(table): \(rows) row(s)") }
            try await target.analyze()
            print(String(format: "copied in %.0f s\n", QueryCase.seconds(ContinuousClock.now - started)))
            store = target
            floorReader = .postgres(target)
        }
        let harness = QueryMethodsHarness(store: store)
        guard let member = try await catalog.users(afterID: nil, limit: 1_000_000).first(where: { $0.name == "member" }) else {
            throw ValidationError("\(queryTemplate) has no member user: remove it to generate it again")
        }
        var results: [QueryCase.Result] = []
        for user in [nil, member] {
            let cases = try await QueryCase.all(harness: harness, member: user, visible: try user.map { try MemberVisibleIDs(of: $0, in: floor) }, users: users)
            for queryCase in cases where only.map({ queryCase.name.contains($0) }) ?? true {
                let result = try await queryCase.measure(harness: harness, as: user, floor: floorReader, runs: queryCase.isFullListing ? allRuns : runs)
                if results.isEmpty { print(QueryCase.Result.header) }
                print(result.line)
                results.append(result)
            }
        }
        if cli && !postgres {
            let june = QueryCase.june
            let cliCases = QueryCLICase.all(
                colleague: QueryCase.colleague, from: june, to: june.addingTimeInterval(7 * 86_400), recordingsTo: june.addingTimeInterval(73 * 86_400))
            if results.isEmpty { print(QueryCase.Result.header) }
            results += try QueryCLICase.measure(
                cliCases.filter { only.map($0.name.contains) ?? true }, catalog: working, floor: floor, runs: allRuns)
        }
        print(QueryCase.Result.summary(results))
    }

    /// Generates (or reuses) `link`'s catalog, adds a member whose calendar holds
    /// `memberMeetings` of the others' meetings, links every recording, keeps the result.
    func makeQueryTemplate() async throws {
        let link = try linkTemplate
        let working = queryTemplate + ".building"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: working + suffix) }
        let catalog: SQLiteCatalog
        if FileManager.default.fileExists(atPath: link.template) {
            try link.upgradeTemplate()
            try FileManager.default.copyItem(atPath: link.template, toPath: working)
            catalog = try await SQLiteCatalog.open(path: working)
        } else {
            catalog = try await SQLiteCatalog.open(path: working)
            _ = try await link.generate(into: catalog)
            _ = try await catalog.backup(to: link.template)
        }
        try await addMember(to: catalog)
        print("linking every recording…")
        let recordingIDs = try await LinkBenchmark.allRecordingIDs(catalog)
        _ = try await RecordingLinker(store: catalog).link(recordingIDs: recordingIDs)
        _ = try await catalog.backup(to: queryTemplate)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: working + suffix) }
    }

    /// A member with their own calendar holding copies of others' meetings (same meeting
    /// identity), spread over the year and over their organisers, who invite the member in their
    /// own copies: a member's copy joins a meeting only when the organiser's copy vouches for it.
    func addMember(to catalog: SQLiteCatalog) async throws {
        let year = Date(timeIntervalSince1970: 1_767_225_600)
        let perUser = max(1, occurrences / users)
        let spacing = 365.0 * 86_400 / Double(perUser)
        let member = try await catalog.addUser(UserDraft(name: "member", emails: ["member@bench.example"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .ics, ownerID: member.id, displayName: "bench-member"), now: Date())
        var updates: [ResourceUpdate] = []
        var invitations: [Int: [ResourceUpdate]] = [:]
        let invited = Attendee(email: "member@bench.example", response: .accepted)
        for index in 0..<memberMeetings {
            let owner = index % users
            let number = (index / users * 7919 + index * 31) % perUser
            let uid = "u\(owner)-e\(number)"
            let start = year.addingTimeInterval(Double(number) * spacing)
            invitations[owner, default: []].append(
                LinkBenchmark.organizersCopy(owner: owner, number: number, users: users, start: start, spacing: spacing, alsoInvited: [invited]))
            updates.append(ResourceUpdate(resource: uid, occurrences: [
                EventOccurrence(
                    remoteID: uid, iCalUID: uid, seriesUID: uid, meetingIdentity: uid, title: "Meeting \(number % 97)", start: start,
                    end: start.addingTimeInterval(min(1800, spacing * 0.8)),
                    organizer: Attendee(email: "user\(owner)@bench.example", role: .organizer, response: .accepted),
                    attendees: [Attendee(email: "member@bench.example", response: .accepted)]),
            ]))
        }
        let organisers = Dictionary(
            try await catalog.accounts(ownerID: nil).map { ($0.displayName, $0.id) }, uniquingKeysWith: { first, _ in first })
        for (owner, copies) in invitations {
            guard let accountID = organisers["bench-\(owner)"] else { throw QueryBenchError.empty("no calendar account bench-\(owner)") }
            _ = try await catalog.applyCalendarChanges(
                CalendarChangeSet(calendar: LinkBenchmark.calendar, scope: .incremental, updatedResources: copies), accountID: accountID, now: Date())
        }
        _ = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "cal", name: "Member"), scope: .incremental, updatedResources: updates),
            accountID: account.id, now: Date())
    }
}
