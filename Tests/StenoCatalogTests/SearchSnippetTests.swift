import Foundation
import GRDB
import StenoTesting
import Testing

@testable import StenoPostgres

/// The PostgreSQL catalog cuts search snippets in Swift (``SearchSnippet``); they must be the
/// ones SQLite's FTS5 `snippet(table, -1, '[', ']', '…', 8)` cuts from the same columns.
@Suite("Search snippets as FTS5 makes them")
struct SearchSnippetTests {
    static let vocabulary = [
        "budget", "Budget", "Überprüfung", "uberprufung", "Zürich", "office", "the", "a", "meeting", "Ångström", "zoe@external.example",
        "Q3", "2026", "plan", "planning", "planned", "review", "東京", "naïve", "café", "end.", "note:", "(aside)", "—", "x-ray",
    ]
    static let queries = [
        ["budget"], ["uberpr"], ["plan"], ["zurich", "office"], ["the"], ["plan", "review", "budget"], ["cafe"], ["東京"], ["x"],
        ["zoe", "external"], ["a"], ["NAIVE"],
    ]

    @Test func snippetsOfRandomTextsMatchFTS5() throws {
        var random = SeededRandom(seed: 19)
        let database = try DatabaseQueue()
        try database.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE texts USING fts5(a, b, tokenize = 'unicode61 remove_diacritics 2')")
            for _ in 0..<300 {
                let columns = (0..<2).map { _ in
                    (0..<Int.random(in: 0...30, using: &random)).map { _ in Self.vocabulary.randomElement(using: &random) ?? "" }
                        .joined(separator: Bool.random(using: &random) ? " " : "  ")
                }
                try db.execute(sql: "INSERT INTO texts (a, b) VALUES (?, ?)", arguments: [columns[0], columns[1]])
            }
        }
        var compared = 0
        for words in Self.queries {
            let match = words.map { "\"\($0)\"*" }.joined(separator: " ")
            let rows = try database.read { db in
                try Row.fetchAll(db, sql: "SELECT a, b, snippet(texts, -1, '[', ']', '…', 8) AS s FROM texts WHERE texts MATCH ?", arguments: [match])
            }
            for row in rows {
                let expected: String = row["s"]
                let columns: [String] = [row["a"], row["b"]]
                #expect(SearchSnippet.snippet(columns: columns, queryWords: words) == expected, "\(words) in \(columns)")
                compared += 1
            }
        }
        #expect(compared > 300)
    }
}
