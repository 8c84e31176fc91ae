import Foundation

/// The words of a text as full-text search indexes them, the same way on both backends:
/// SQLite's FTS5 (`unicode61 remove_diacritics 2`) splits text into runs of letters and digits
/// and folds case and diacritics; the PostgreSQL catalog stores exactly these lexemes (with
/// `array_to_tsvector`), so a word finds the same rows on either.
enum SearchLexemes {
    /// The distinct folded words of `texts`.
    static func lexemes(_ texts: [String?]) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for text in texts {
            guard let text else { continue }
            for word in words(text) where seen.insert(word).inserted { result.append(word) }
        }
        return result
    }

    /// The folded words of one text, in order, repeats kept.
    static func words(_ text: String) -> [String] {
        fold(text).split { !isTokenCharacter($0) }.map(String.init)
    }

    /// The search for `words` as a `tsquery` literal: every word must match, each as a prefix
    /// (as FTS5's `"word"*`). Words are folded like the index and quoted, so no character of the
    /// user's text can act as an operator.
    static func prefixQuery(_ words: [String]) -> String {
        words.flatMap { self.words($0) }
            .map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "':*" }
            .joined(separator: " & ")
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Letters and digits (and private-use characters, as unicode61 keeps them) make words.
    static func isTokenCharacter(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }
}
