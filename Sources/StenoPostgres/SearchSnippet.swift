import Foundation

/// The snippet of a search hit as SQLite's FTS5 makes it with
/// `snippet(table, -1, '[', ']', '…', 8)`, so both catalogs show the same text: the column and
/// the window of eight words holding the most distinct query words (a window starting a
/// sentence preferred when as good), each matching word in brackets, an ellipsis where text
/// was cut. Words are found as the index finds them (``SearchLexemes``), every query word as
/// a prefix.
enum SearchSnippet {
    /// The longest snippet, in words.
    static let windowSize = 8

    /// The snippet of the best of `columns` (in the table's column order) for `queryWords`.
    static func snippet(columns: [String], queryWords: [String]) -> String {
        let phrases = queryWords.flatMap(SearchLexemes.words)
        let tokenized = columns.map(tokens)
        // Every matching word: (query word, column, position), by column then position.
        var instances: [Instance] = []
        for (column, tokens) in tokenized.enumerated() {
            for (position, token) in tokens.enumerated() {
                for (phrase, word) in phrases.enumerated() where token.folded.utf8.starts(with: word.utf8) {
                    instances.append(Instance(phrase: phrase, column: column, position: position))
                }
            }
        }
        var best = (score: 0, column: 0, start: 0)
        for (column, tokens) in tokenized.enumerated() {
            let sentences = sentenceStarts(columns[column], tokens)
            for instance in instances where instance.column == column {
                let (score, adjusted) = self.score(instances, phrases.count, column: column, from: instance.position, size: tokens.count)
                if score > best.score { best = (score, column, adjusted) }
                // The sentence holding the match, when the column is longer than a snippet.
                guard tokens.count > windowSize, let sentence = sentences.last(where: { $0 <= instance.position }),
                    sentence < instance.position
                else { continue }
                let fromSentence = self.score(instances, phrases.count, column: column, from: sentence, size: tokens.count).score
                    + (sentence == 0 ? 120 : 100)
                if fromSentence > best.score { best = (fromSentence, column, sentence) }
            }
        }
        guard best.column < columns.count else { return "" }
        return highlighted(
            columns[best.column], tokenized[best.column], start: best.start,
            matches: Set(instances.filter { $0.column == best.column }.map(\.position)))
    }

    struct Instance {
        var phrase: Int
        var column: Int
        var position: Int
    }

    struct Token {
        var range: Range<String.Index>
        var folded: String
    }

    /// The words of a text with where they stand in it.
    static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let isToken = SearchLexemes.isTokenCharacter(text[index])
            if isToken, start == nil { start = index }
            if !isToken, let first = start {
                tokens.append(Token(range: first..<index, folded: SearchLexemes.fold(String(text[first..<index]))))
                start = nil
            }
            index = text.index(after: index)
        }
        if let first = start { tokens.append(Token(range: first..<text.endIndex, folded: SearchLexemes.fold(String(text[first...])))) }
        return tokens
    }

    /// The positions of words that start a sentence: the first, and any after a `.` or `:`
    /// followed by white space.
    static func sentenceStarts(_ text: String, _ tokens: [Token]) -> [Int] {
        guard !tokens.isEmpty else { return [] }
        var starts = [0]
        for position in tokens.indices.dropFirst() {
            var index = tokens[position].range.lowerBound
            var skippedSpace = false
            while index > text.startIndex, text[text.index(before: index)].unicodeScalars.allSatisfy({ " \t\n\r".unicodeScalars.contains($0) }) {
                index = text.index(before: index)
                skippedSpace = true
            }
            if skippedSpace, index > text.startIndex, [".", ":"].contains(text[text.index(before: index)]) { starts.append(position) }
        }
        return starts
    }

    /// A window's score (1000 per distinct query word in it, 1 per repeat) and the window's
    /// start moved to centre its matches within the column of `size` words.
    static func score(_ instances: [Instance], _ phraseCount: Int, column: Int, from start: Int, size: Int) -> (score: Int, start: Int) {
        var seen = [Bool](repeating: false, count: phraseCount)
        var score = 0
        var first = -1
        var last = 0
        for instance in instances where instance.column == column && instance.position >= start && instance.position < start + windowSize {
            score += seen[instance.phrase] ? 1 : 1000
            seen[instance.phrase] = true
            if first < 0 { first = instance.position }
            last = instance.position + 1
        }
        var adjusted = first - (windowSize - (last - first)) / 2
        if adjusted + windowSize > size { adjusted = size - windowSize }
        return (score, max(0, adjusted))
    }

    /// The window of `text` from word `start`, matching words in brackets.
    static func highlighted(_ text: String, _ tokens: [Token], start: Int, matches: Set<Int>) -> String {
        let end = start + windowSize - 1
        var result = start > 0 ? "…" : ""
        var copied = start > 0 && start < tokens.count ? tokens[start].range.lowerBound : text.startIndex
        for position in tokens.indices where position >= start && position <= end {
            let range = tokens[position].range
            if matches.contains(position) {
                result += text[copied..<range.lowerBound] + "[" + text[range] + "]"
                copied = range.upperBound
            }
            if position == end {
                result += text[copied..<range.upperBound]
                copied = range.upperBound
            }
        }
        if end >= tokens.count - 1 {
            result += text[copied...]
        } else {
            result += "…"
        }
        return result
    }
}
