import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// A search of one word ranks with `steno_term_rank` (bm25 without the inverse document
/// frequency, which bm25 counts by walking every row holding the word) in bm25's order.
@Suite("Searches of one word ranked as bm25 ranks them")
struct SearchTermRankTests {
    /// Titles and attendees holding the words a different number of times, in texts of
    /// different lengths (bm25 weighs both).
    static let meetings: [(title: String, attendees: String)] = [
        ("Plan", ""), ("Plan plan review", "Ann ann@example.com"), ("Weekly plan", "Bob bob@example.com Carol carol@example.com"),
        ("Planning the plan for planners", ""), ("A long meeting about many things where the plan comes up once", "Dave dave@example.com"),
        ("Review", "Plan Owner plan@example.com"), ("Weekly review of the weekly plan", ""), ("Standup", "Erin erin@example.com"),
        ("Plan", "Frank frank@example.com"), ("Retro", "Planner planner@example.com planner2@example.com"),
    ]

    @Test(arguments: ["plan", "PLAN", "review", "weekly", "example", "planner", "standup", "nothing"])
    func oneWordRanksAsBm25(word: String) async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await temporary.open()
        try await catalog.writer.write { db in
            for (index, meeting) in Self.meetings.enumerated() {
                try db.execute(
                    sql: "INSERT INTO meetings (id, identity, title, starts_at, ends_at, created_at, updated_at) VALUES (?, ?, ?, 0, 1, 0, 0)",
                    arguments: [index + 1, "m\(index)", meeting.title])
                try db.execute(
                    sql: "INSERT INTO meeting_search (rowid, title, attendees) VALUES (?, ?, ?)", arguments: [index + 1, meeting.title, meeting.attendees])
            }
        }
        let hits = try await catalog.search(word, visibleTo: nil, offset: 0, limit: 100).map(\.id)
        let match = try #require(try SearchTerms.forStore(word)).matchExpression
        let byBm25 = try await catalog.writer.read { db in
            try Int64.fetchAll(
                db, sql: "SELECT id FROM (\(SQLiteCatalog.meetingSearch(forMember: false, oneWord: false)))",
                arguments: ["match": match, "limit": 100, "candidates": SearchHit.rankedAmongNewest])
        }
        #expect(hits == byBm25)
        if word != "nothing" { #expect(!hits.isEmpty) }
    }
}
