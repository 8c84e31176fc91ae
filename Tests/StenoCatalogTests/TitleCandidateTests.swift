import Foundation
import GRDB
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// `meetings --title` through the titles' trigram index answers what a `LIKE` over every title
/// answers: letters in either case, accents (which `LIKE` compares exactly), `%` and `_` taken
/// literally, quotes, texts under three characters, texts no title holds, and titles changed
/// or removed after they were indexed.
@Suite("Meeting titles found through trigrams")
struct TitleCandidateTests {
    static let titles = [
        "Weekly Standup", "weekly standup", "WEEKLY STANDUP", "Café Crème", "CAFÉ crème", "cafe creme", "100% done",
        "100 percent", "snake_case review", "snakeXcase review", "a", "ab", "Quote \"this\" now", "Standup retro",
        "Über planning", "über planning", "",
    ]
    static let texts = [
        "standup", "STANDUP", "Weekly", "eekly st", "café", "CAFÉ", "é", "crème", "100%", "%", "_", "e_c", "snake_case",
        "a", "ab", "A", "xyz", "\"this\"", "\"", "über", "ÜBER", "ber pla", "up", "p r", "done", "0% d",
    ]

    /// Every title, each meeting a minute after the last (so the listing's order is the ids').
    static func catalog(_ temporary: TemporaryCatalog) async throws -> SQLiteCatalog {
        let catalog = try await temporary.open()
        try await catalog.writer.write { db in
            for (index, title) in titles.enumerated() {
                try db.execute(
                    sql: "INSERT INTO meetings (identity, title, starts_at, ends_at, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)",
                    arguments: ["m\(index)", title, 1_780_272_000_000 + Int64(index) * 60_000, 1_780_272_000_000 + Int64(index) * 60_000 + 1])
            }
        }
        return catalog
    }

    /// The meetings whose title a `LIKE` finds, in the listing's order.
    static func likeEveryTitle(_ catalog: SQLiteCatalog, _ text: String) async throws -> [Int64] {
        try await catalog.writer.read { db in
            try Int64.fetchAll(
                db, sql: "SELECT id FROM meetings WHERE title LIKE ? ESCAPE '\\' ORDER BY starts_at, id",
                arguments: [CatalogSQL.likePattern(containing: text)])
        }
    }

    static func listed(_ catalog: SQLiteCatalog, _ text: String, member: Int64? = nil) async throws -> [Int64] {
        try await catalog.meetings(MeetingQuery(titleContains: text, limit: 10_000)).map(\.id)
    }

    @Test func theIndexFindsWhatLikeFinds() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await Self.catalog(temporary)
        var throughIndex = 0
        for text in Self.texts {
            #expect(try await Self.listed(catalog, text) == (try await Self.likeEveryTitle(catalog, text)), "\(text)")
            if try await catalog.writer.read({ db in try SQLiteCatalog.titleCandidates(db, containing: text) }) != nil {
                throughIndex += 1
            }
        }
        // The ASCII texts of three characters or more go through the index on a catalog this small.
        #expect(throughIndex == Self.texts.filter { $0.unicodeScalars.count >= 3 && $0.unicodeScalars.allSatisfy(\.isASCII) }.count)
    }

    @Test func changedAndRemovedTitlesAreFoundByTheirNewText() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await Self.catalog(temporary)
        try await catalog.writer.write { db in
            try db.execute(sql: "UPDATE meetings SET title = 'Quarterly review' WHERE title = 'Weekly Standup'")
            try db.execute(sql: "UPDATE meetings SET title = title WHERE title = 'weekly standup'")
            try db.execute(sql: "DELETE FROM meetings WHERE title = 'WEEKLY STANDUP'")
        }
        for text in ["standup", "Weekly", "quarterly", "review", "rly re"] {
            #expect(try await Self.listed(catalog, text) == (try await Self.likeEveryTitle(catalog, text)), "\(text)")
        }
        #expect(try await Self.listed(catalog, "quarterly").count == 1)
        #expect(try await Self.listed(catalog, "weekly").count == 1)
    }

    /// A text each of whose trigrams more than ``SQLiteCatalog/titleCandidateLimit`` titles hold
    /// walks the meetings in order (a page meets its matches soon); a rare one reads the index,
    /// and its plan scans no table.
    @Test func onlyARareTextReadsTheIndex() async throws {
        let temporary = TemporaryCatalog()
        let catalog = try await Self.catalog(temporary)
        try await catalog.writer.write { db in
            for index in 0...SQLiteCatalog.titleCandidateLimit {
                try db.execute(
                    sql: "INSERT INTO meetings (identity, title, starts_at, ends_at, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)",
                    arguments: ["filler\(index)", "Sync \(index)", 1_790_000_000_000 + Int64(index), 1_790_000_000_001 + Int64(index)])
            }
        }
        try await catalog.writer.read { db in
            #expect(try SQLiteCatalog.titleCandidates(db, containing: "sync") == nil)
            let rare = try SQLiteCatalog.titleCandidates(db, containing: "standup")
            #expect(rare != nil)
            let (sql, arguments) = SQLiteCatalog.meetingListing(MeetingQuery(titleContains: "standup", limit: 10), titleCandidates: rare)
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
            #expect(plan.contains { $0.contains("meeting_titles") }, "\(plan)")
            #expect(try ListingPlanTests.fullScans(db, sql, arguments) == [])
        }
        #expect(try await Self.listed(catalog, "sync").count == SQLiteCatalog.titleCandidateLimit + 1)
        #expect(try await Self.listed(catalog, "standup") == (try await Self.likeEveryTitle(catalog, "standup")))
    }
}
