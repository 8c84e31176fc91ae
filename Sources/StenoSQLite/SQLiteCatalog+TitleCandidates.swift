import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// `meetings --title TEXT`: the meetings whose title contains the text, found through the
/// trigram index of the titles (`meeting_titles`, migration 0023) when that is cheaper than
/// walking the meetings in the listing's order testing each title.
///
/// The index only proposes candidates: every title holding the text (as `LIKE` compares, ASCII
/// letters in either case) holds each of its trigrams, so the titles holding its rarest trigram
/// are a superset, and the listing still tests each with the same `LIKE`: the answers are those
/// of the walk.
extension SQLiteCatalog {
    /// At most this many candidates are read through the index: more, and a page walking the
    /// meetings in order meets its matches soon enough.
    static let titleCandidateLimit = 2_000
    /// At most this many trigrams of a text are probed for one held by few titles.
    static let titleTrigramProbes = 4

    /// The full-text expression whose matches in `meeting_titles` include every meeting whose
    /// title contains `text`, or nil when the listing should walk the meetings instead: a text
    /// under three characters (no trigram), one with letters beyond ASCII (`LIKE` compares those
    /// exactly, the index folds them), or one none of whose probed trigrams is held by at most
    /// ``titleCandidateLimit`` titles. Each probe stops counting past the limit, so a common
    /// text costs a few bounded index reads, not a count of every title holding a trigram.
    static func titleCandidates(_ db: Database, containing text: String?) throws -> String? {
        guard let trigrams = titleTrigrams(text) else { return nil }
        // Those made of letters common in titles last: a digit or a rare letter finds a trigram
        // few titles hold in fewer probes (each probe of a common one reads the limit's postings).
        let probed = trigrams.enumerated()
            .sorted { (commonLetters($0.element), $0.offset) < (commonLetters($1.element), $1.offset) }
            .prefix(titleTrigramProbes).map(\.element)
        let statement = try db.cachedStatement(
            sql: "SELECT count(*) FROM (SELECT 1 FROM meeting_titles WHERE meeting_titles MATCH ? LIMIT ?)")
        for trigram in probed {
            let phrase = "\"" + trigram.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let held = try Int.fetchOne(statement, arguments: [phrase, titleCandidateLimit + 1]) ?? 0
            if held <= titleCandidateLimit { return phrase }
        }
        return nil
    }

    /// How many of a trigram's characters are among the most frequent letters of English text.
    private static func commonLetters(_ trigram: String) -> Int {
        trigram.unicodeScalars.filter { "etaoinshrdlcu ".unicodeScalars.contains($0) }.count
    }

    /// The distinct trigrams of `text` as the index folds them (ASCII lowercased), or nil when
    /// the index cannot propose candidates for it (beyond ASCII, or holding a NUL).
    static func titleTrigrams(_ text: String?) -> [String]? {
        // A NUL ends FTS5's reading of a phrase (an unterminated string) as it ends LIKE's of a
        // pattern: such a text is left to the walk.
        guard let text, text.unicodeScalars.allSatisfy(\.isASCII), !text.utf8.contains(0) else { return nil }
        let characters = Array(text.lowercased().unicodeScalars)
        guard characters.count >= 3 else { return nil }
        var seen = Set<String>()
        return (0...(characters.count - 3)).compactMap { start in
            var trigram = String.UnicodeScalarView()
            trigram.append(contentsOf: characters[start..<(start + 3)])
            let text = String(trigram)
            return seen.insert(text).inserted ? text : nil
        }
    }
}
