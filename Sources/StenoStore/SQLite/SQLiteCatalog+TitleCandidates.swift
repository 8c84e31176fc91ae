import Foundation
import GRDB
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
    /// The full-text expression whose matches in `meeting_titles` include every meeting whose
    /// title contains `text`, or nil when the listing should walk the meetings instead: a text
    /// under three characters (no trigram), one with letters beyond ASCII (`LIKE` compares those
    /// exactly, the index folds them), or one common enough that a page meets its matches soon.
    static func titleCandidates(_ db: Database, containing text: String?, pageSize: Int) throws -> String? {
        guard let trigrams = titleTrigrams(text) else { return nil }
        let counts = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT term, doc FROM meeting_title_trigrams WHERE term IN (SELECT value FROM json_each(?))"),
            arguments: [jsonArray(trigrams)])
        let found = Dictionary(counts.map { ($0[0] as String, $0[1] as Int) }, uniquingKeysWith: max)
        // A trigram no title holds: no title holds the text, and the index answers at once.
        guard let rarest = trigrams.min(by: { found[$0, default: 0] < found[$1, default: 0] }) else { return nil }
        let candidates = found[rarest, default: 0]
        // A page walking the meetings tests about pageSize × meetings ÷ matches titles; through
        // the index it reads and sorts every candidate. The rarest trigram's count bounds the
        // matches from above, so a walk is chosen only when it surely finds the page soon.
        let meetings = try Int.fetchOne(db, sql: "SELECT max(id) FROM meetings") ?? 0
        guard candidates * candidates <= max(1, pageSize) * meetings else { return nil }
        return "\"" + rarest.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The distinct trigrams of `text` as the index folds them (ASCII lowercased), or nil when
    /// the index cannot propose candidates for it.
    static func titleTrigrams(_ text: String?) -> [String]? {
        guard let text, text.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
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
