import Foundation

/// Splits a migration file into its statements: PostgreSQL's extended query protocol, the one
/// the driver speaks, takes one statement per message.
enum SQLScript {
    /// The statements of `script`, without comments, in order. Semicolons inside quoted text,
    /// quoted identifiers and dollar-quoted bodies do not end a statement.
    static func statements(_ script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var characters = Array(script)[...]
        while let character = characters.popFirst() {
            switch character {
            case "-" where characters.first == "-":
                // A line comment: drop it up to the end of the line.
                while let next = characters.first, next != "\n" { characters.removeFirst() }
            case "'", "\"":
                current.append(character)
                while let next = characters.popFirst() {
                    current.append(next)
                    if next == character { break }
                }
            case "$":
                // A dollar quote: $tag$ … $tag$.
                var tag = "$"
                while let next = characters.first, next.isLetter || next.isNumber || next == "_" { tag.append(characters.removeFirst()) }
                guard characters.first == "$" else {
                    current += tag
                    continue
                }
                tag.append(characters.removeFirst())
                current += tag
                var body = ""
                while let next = characters.popFirst() {
                    body.append(next)
                    if body.hasSuffix(tag) { break }
                }
                current += body
            case ";":
                append(&current, to: &statements)
            default:
                current.append(character)
            }
        }
        append(&current, to: &statements)
        return statements
    }

    private static func append(_ statement: inout String, to statements: inout [String]) {
        let trimmed = statement.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { statements.append(trimmed) }
        statement = ""
    }
}
