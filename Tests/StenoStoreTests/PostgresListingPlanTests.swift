import Foundation
import Logging
import PostgresNIO
import StenoCore
import StenoStore
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

    @Test func pagesOfMeetingsWalkTheStartIndexInTheirOrderWithoutHashingEvents() async throws {
        let opened = try await StoreBackend.postgres.open()
        let fixture = try await MeetingFixture.make(opened.store)
        try await fixture.linkAll()
        let catalog = try #require(opened.store as? PostgresCatalog)
        try await catalog.analyze()

        // First pages: on a tiny catalog a page after a position may rightly prefer a bitmap of
        // its few rows and a sort.
        let pages: [(String, MeetingQuery)] = [
            ("newest first", MeetingQuery(hideGone: true, newestFirst: true)),
            ("earliest first", MeetingQuery(hideGone: true)),
            ("titles newest first", MeetingQuery(titleContains: "review", hideGone: true, newestFirst: true)),
            ("unrecorded newest first", MeetingQuery(recorded: false, hideGone: true, newestFirst: true)),
        ]
        for (name, query) in pages {
            let plan = try await Self.plan(catalog, PostgresCatalog.meetingListing(query))
            let shown = "\(name):\n" + plan.joined(separator: "\n")
            #expect(plan.contains { $0.contains(" using meetings_start on meetings m") }, "\(shown)")
            #expect(!plan.contains { $0.hasPrefix("->  Sort") || $0.hasPrefix("Sort") }, "\(shown)")
            #expect(!plan.contains { $0.contains("hashed SubPlan") }, "\(shown)")
        }
        withExtendedLifetime(opened) {}
    }
}
