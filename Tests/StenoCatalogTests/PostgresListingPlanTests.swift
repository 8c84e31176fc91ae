import Foundation
import Logging
import PostgresNIO
import StenoCatalog
import StenoCore
import StenoTesting
import Testing

@testable import StenoPostgres

/// What PostgreSQL's meeting listings do with the order they ask for: a page of meetings in
/// start order, either way, walks an index in that order and stops at the page's end, instead
/// of sorting every matching meeting; and what hides meetings gone from their calendars is
/// looked up for the meetings the walk reads, never hashed from every event first. At 100,000
/// meetings the sort and the hash each cost tens of milliseconds for a page of fifty.
///
/// A test catalog is tiny, so the planner would rightly scan it whole: sequential scans are
/// turned off for the statement, which leaves the paths an index offers. (Which index path
/// wins at scale, a join from a member's set or the walk, is measured by `steno-bench query
/// --postgres`, not here.)
@Suite(
    "Query plans of PostgreSQL listings",
    .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresListingPlanTests {
    /// The plan of `query`, one line per row of `EXPLAIN`, with sequential scans turned off.
    static func plan(_ catalog: PostgresCatalog, _ query: PostgresQuery) async throws -> [String] {
        try await catalog.transaction { tx in
            try await tx.execute("SET LOCAL enable_seqscan = off")
            return try await tx.rows(PostgresQuery(unsafeSQL: "EXPLAIN (COSTS OFF) " + query.sql, binds: query.binds))
                .map { try $0.decode(String.self).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// A PostgreSQL catalog holding the meeting fixture, every recording linked, with the
    /// planner's statistics gathered; keep `opened` alive while using `catalog`.
    static func analyzedFixture() async throws -> (opened: OpenedCatalog, catalog: PostgresCatalog) {
        let opened = try await StoreBackend.postgres.open()
        let fixture = try await MeetingFixture.make(opened.store)
        try await fixture.linkAll()
        let catalog = try #require(opened.store as? PostgresCatalog)
        try await catalog.analyze()
        return (opened, catalog)
    }

    @Test func pagesOfMeetingsWalkTheStartIndexInTheirOrderWithoutHashingEvents() async throws {
        let (opened, catalog) = try await Self.analyzedFixture()

        // First pages: on a tiny catalog a page after a position may rightly prefer a bitmap of
        // its few rows and a sort.
        let pages: [(String, MeetingQuery)] = [
            ("newest first", MeetingQuery(hideGone: true, newestFirst: true)),
            ("earliest first", MeetingQuery(hideGone: true)),
            ("unrecorded newest first", MeetingQuery(recorded: false, hideGone: true, newestFirst: true)),
        ]
        for (name, query) in pages {
            let plan = try await Self.plan(catalog, PostgresCatalog.meetingListing(query))
            let shown = "\(name):\n" + plan.joined(separator: "\n")
            #expect(plan.contains { $0.contains(" using meetings_start on meetings m") }, "\(shown)")
            #expect(!plan.contains { $0.hasPrefix("->  Sort") || $0.hasPrefix("Sort") }, "\(shown)")
            #expect(!plan.contains { $0.contains("hashed SubPlan") }, "\(shown)")
        }
        // A title few meetings hold is read through the titles' trigrams, not by walking every
        // meeting in start order testing each title (a text nothing matches walked a million).
        let titles = try await Self.plan(
            catalog, PostgresCatalog.meetingListing(MeetingQuery(titleContains: "review", hideGone: true, newestFirst: true)))
        #expect(titles.contains { $0.contains(" on meetings_title_trigrams") }, "\(titles.joined(separator: "\n"))")
        withExtendedLifetime(opened) {}
    }

    /// An admin's recordings page in another order than by id walks that order's index and
    /// stops at the page's end, instead of sorting every recording for each page.
    @Test func orderedRecordingPagesWalkTheirOrdersIndex() async throws {
        let (opened, catalog) = try await Self.analyzedFixture()
        let indexes: [RecordingSort: String] = [
            .recorded: "recordings_recorded_order", .ingested: "recordings_created", .length: "recordings_length", .id: "recordings_pkey",
        ]
        for (sort, index) in indexes {
            for descending in [true, false] where RecordingOrder(sort: sort, descending: descending) != .byID {
                for after in [nil, RecordingPosition(key: 1_780_272_000_000, id: 7)] {
                    let query = RecordingQuery(order: RecordingOrder(sort: sort, descending: descending), after: after, limit: 51)
                    let plan = try await Self.plan(catalog, PostgresCatalog.orderedRecordingListing(query))
                    let shown = "\(sort) \(descending ? "descending" : "ascending")\(after == nil ? "" : " after"):\n" + plan.joined(separator: "\n")
                    #expect(plan.contains { $0.contains(" using \(index) on recordings r") }, "\(shown)")
                    #expect(!plan.contains { $0.hasPrefix("->  Sort") || $0.hasPrefix("Sort") }, "\(shown)")
                }
            }
        }
        withExtendedLifetime(opened) {}
    }

    /// A `--with` page walks the address's rows of `meeting_people` in the listing's order,
    /// either way, and stops at the page's end: no set of the address's meetings gathered from
    /// the events first (20,000 ids per page at a million meetings: 102 ms), no sort.
    @Test func withPagesWalkTheAddressesRowsInTheirOrder() async throws {
        let (opened, catalog) = try await Self.analyzedFixture()
        let pages: [(String, MeetingQuery)] = [
            ("newest first", MeetingQuery(withEmail: "bob@example.com", hideGone: true, newestFirst: true)),
            ("earliest first", MeetingQuery(withEmail: "bob@example.com", hideGone: true)),
            ("titles newest first", MeetingQuery(withEmail: "bob@example.com", titleContains: "review", hideGone: true, newestFirst: true)),
            // What `steno meetings --with bob@example.com` sends: one address among `withAny`.
            ("one address as steno sends it", MeetingQuery(hideGone: true, newestFirst: true, withAny: [.email("bob@example.com")])),
        ]
        for (name, query) in pages {
            let plan = try await Self.plan(catalog, PostgresCatalog.meetingListing(query))
            let shown = "\(name):\n" + plan.joined(separator: "\n")
            #expect(plan.contains { $0.contains(" using meeting_people_walk on meeting_people p") }, "\(shown)")
            #expect(!plan.contains { $0.hasPrefix("->  Sort") || $0.hasPrefix("Sort") }, "\(shown)")
            #expect(!plan.contains { $0.contains("hashed SubPlan") || $0.contains("HashAggregate") || $0.contains("event_attendees") }, "\(shown)")
        }
        withExtendedLifetime(opened) {}
    }

    /// The scans of a search table in `plan` that test the words on rows they did not find
    /// through an index condition: a walk of the table that a word matching nothing reads whole.
    static func unboundedWordTests(_ plan: [String]) -> [String] {
        var found: [String] = []
        for (index, line) in plan.enumerated()
        where line.contains("Scan") && (line.contains(" on meeting_search") || line.contains(" on recording_search")) {
            let details = plan[(index + 1)...].prefix { !$0.hasPrefix("->") }
            if details.contains(where: { $0.hasPrefix("Filter:") && $0.contains("@@") }) && !details.contains(where: { $0.hasPrefix("Index Cond:") }) {
                found.append(line)
            }
        }
        return found
    }

    /// An admin's search reads its candidates without walking a search table testing every row:
    /// PostgreSQL estimates every prefix word alike, and planned one statement as a walk of the
    /// primary key newest first, the whole table for a word nothing matches (179 ms at a
    /// million meetings). The statements the search runs instead: a walk of the newest rows
    /// (bounded), a read through the full-text index, and the ranking of the ids found.
    @Test func anAdminsSearchNeverTestsEveryRowOfASearchTable() async throws {
        let (opened, catalog) = try await Self.analyzedFixture()
        let words = SearchLexemes.prefixQuery(["nothingmatchesthis"])

        // The rule catches the single statement the search ran before.
        let single = try await Self.plan(catalog, PostgresCatalog.meetingSearch(words, visibleTo: nil, wanted: 50, candidates: 1_000))
        #expect(!Self.unboundedWordTests(single).isEmpty, "\(single.joined(separator: "\n"))")

        for (table, key) in [("meeting_search", "meeting_id"), ("recording_search", "recording_id")] {
            let (walk, indexRead) = PostgresCatalog.newestMatchStatements(in: table, key: key, query: words, candidates: 1_000)
            for (name, statement) in [("walk", walk), ("index read", indexRead)] {
                let plan = try await Self.plan(catalog, statement)
                #expect(Self.unboundedWordTests(plan).isEmpty, "\(table) \(name):\n\(plan.joined(separator: "\n"))")
                if name == "walk" { #expect(plan.first == "Limit", "\(plan.joined(separator: "\n"))") }
            }
        }
        for statement in [
            PostgresCatalog.meetingSearch(words, visibleTo: nil, among: [1, 2, 3], wanted: 50, candidates: 1_000),
            PostgresCatalog.recordingSearch(words, visibleTo: nil, among: [1, 2, 3], wanted: 50, candidates: 1_000),
        ] {
            let plan = try await Self.plan(catalog, statement)
            #expect(Self.unboundedWordTests(plan).isEmpty, "\(plan.joined(separator: "\n"))")
        }
        withExtendedLifetime(opened) {}
    }

    /// A member's page is read among the meetings (or recordings) of their set that it may
    /// hold, given by id: the statement of each page never builds the set again through the
    /// tables that make it (calendars by owner, emails by user), nor walks every meeting by
    /// start testing each against it. (Searches are given the set as ids too: the test above.)
    @Test func membersPagesDoNotBuildTheirVisibleSet() async throws {
        let (opened, catalog) = try await Self.analyzedFixture()
        let meetingPages: [(String, MeetingQuery)] = [
            ("everything", MeetingQuery()),
            ("range", MeetingQuery(from: MeetingFixture.at(minutes: 100), to: MeetingFixture.at(minutes: 300))),
            ("recorded", MeetingQuery(recorded: true)),
            ("unrecorded newest first", MeetingQuery(recorded: false, hideGone: true, newestFirst: true)),
            ("title", MeetingQuery(titleContains: "review")),
            ("after", MeetingQuery(after: MeetingPosition(startMilliseconds: nil, id: 7))),
        ]
        var statements: [(String, PostgresQuery)] = meetingPages.map { name, query in
            var query = query
            query.visibleTo = 3
            return ("meetings \(name)", PostgresCatalog.meetingListing(query, among: [1, 2, 3, 4, 5]))
        }
        for (name, query) in [("everything", RecordingQuery()), ("after", RecordingQuery(afterID: 2)), ("failed", RecordingQuery(status: .failed))] {
            var query = query
            query.visibleTo = 3
            statements.append(("recordings \(name)", PostgresCatalog.recordingListing(query, among: [1, 2, 3, 4])))
        }
        for (name, statement) in statements {
            let plan = try await Self.plan(catalog, statement)
            let shown = "\(name):\n" + plan.joined(separator: "\n")
            #expect(!plan.contains { $0.contains("user_emails") || $0.contains("calendar_accounts") }, "\(shown)")
            #expect(!plan.contains { $0.contains("meetings_start") }, "\(shown)")
        }
        withExtendedLifetime(opened) {}
    }
}
