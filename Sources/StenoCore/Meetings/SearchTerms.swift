/// The words of a full-text search, bounded so one query cannot occupy the daemon.
///
/// SQLite's FTS5 spends time growing with the square of the number of terms in a MATCH
/// expression (a 10,000-word query ran for minutes), so a query is refused above
/// `maximumBytes` or `maximumWords`. Repeated words (ignoring case) count once: they would
/// not narrow the search.
public struct SearchTerms: Sendable, Hashable {
    /// The longest query text accepted, in UTF-8 bytes.
    public static let maximumBytes = 512
    /// The most distinct words a query may have.
    public static let maximumWords = 32

    /// Why a query was refused.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text is longer than `maximumBytes`.
        case tooLong(bytes: Int)
        /// The text has more distinct words than `maximumWords`.
        case tooManyWords
        /// The text has no letters or digits.
        case noWords

        public var description: String {
            switch self {
            case .tooLong(let bytes):
                return "the search text is \(bytes) bytes; at most \(SearchTerms.maximumBytes) are accepted: search for a few distinctive words"
            case .tooManyWords:
                return "the search text has more than \(SearchTerms.maximumWords) different words; search for a few distinctive ones"
            case .noWords:
                return "give some words to search for"
            }
        }
    }

    /// The distinct words, in the order given.
    public let words: [String]

    /// Splits `text` into words (runs of letters and digits), in time linear in its length.
    public init(_ text: String) throws(Problem) {
        let bytes = text.utf8.count
        guard bytes <= Self.maximumBytes else { throw .tooLong(bytes: bytes) }
        var seen = Set<String>()
        var words: [String] = []
        for word in text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
            let word = String(word)
            guard seen.insert(word.lowercased()).inserted else { continue }
            guard words.count < Self.maximumWords else { throw .tooManyWords }
            words.append(word)
        }
        guard !words.isEmpty else { throw .noWords }
        self.words = words
    }

    /// The FTS5 MATCH expression: every word as a quoted prefix, all required.
    public var matchExpression: String {
        words.map { "\"\($0)\"*" }.joined(separator: " ")
    }
}
