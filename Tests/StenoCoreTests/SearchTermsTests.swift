import StenoCore
import Testing

/// A search's words: split, deduplicated and bounded before FTS5 sees them.
@Suite("Search terms")
struct SearchTermsTests {
    @Test func wordsAreSplitOnPunctuationAndRepeatsCountOnce() throws {
        let terms = try SearchTerms("Acme, renewal — ACME 2026 acme")
        #expect(terms.words == ["Acme", "renewal", "2026"])
        #expect(terms.matchExpression == #""Acme"* "renewal"* "2026"*"#)
    }

    @Test func atMostThirtyTwoDistinctWords() throws {
        let allowed = (1...SearchTerms.maximumWords).map { "w\($0)" }
        #expect(try SearchTerms(allowed.joined(separator: " ")).words.count == SearchTerms.maximumWords)
        // Repeating allowed words adds nothing to count.
        #expect(try SearchTerms((allowed + allowed).joined(separator: " ")).words == allowed)
        #expect(throws: SearchTerms.Problem.tooManyWords) { try SearchTerms((allowed + ["w33"]).joined(separator: " ")) }
    }

    @Test func longTextIsRefusedWhateverItsWords() throws {
        let text = String(repeating: "a ", count: 10_000)
        #expect(throws: SearchTerms.Problem.tooLong(bytes: 20_000)) { try SearchTerms(text) }
        #expect(try SearchTerms(String(repeating: "é", count: SearchTerms.maximumBytes / 2)).words.count == 1)
        #expect(throws: SearchTerms.Problem.self) { try SearchTerms(String(repeating: "é", count: SearchTerms.maximumBytes / 2 + 1)) }
    }

    @Test func textWithoutLettersOrDigitsHasNoWords() {
        #expect(throws: SearchTerms.Problem.noWords) { try SearchTerms(" !?— ") }
    }
}
