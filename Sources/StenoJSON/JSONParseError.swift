/// Why a byte sequence is not a JSON text, and where.
///
/// `offset` is the zero-based byte offset of the offending byte (or of the end of input);
/// `line` and `column` (both one-based, column counted in bytes) are derived from it so a
/// human can find the spot in an editor.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The category of a parse failure.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Bytes that are not well-formed UTF-8 (overlong, surrogate, truncated, out of range).
        case invalidUTF8
        /// The input ended before the value was complete (including empty input).
        case unexpectedEnd
        /// A byte that cannot appear at this point (including raw control characters in strings).
        case unexpectedCharacter
        /// A malformed number (leading zero, missing digits) or one out of `Double`'s range.
        case invalidNumber
        /// A malformed backslash escape or a lone UTF-16 surrogate in `\u` escapes.
        case invalidEscape
        /// Arrays and objects nested deeper than the parser's `maxDepth`.
        case tooDeep
        /// Something other than whitespace follows the complete value.
        case trailingData
    }

    /// The category of the failure.
    public let kind: Kind
    /// Zero-based byte offset of the failure.
    public let offset: Int
    /// One-based line of the failure.
    public let line: Int
    /// One-based column (in bytes) of the failure.
    public let column: Int
    /// A short explanation, e.g. `expected ',' or '}' after an object member, found 'x'`.
    public let detail: String

    /// Creates an error; `line` and `column` default to the values for a one-line input.
    public init(kind: Kind, offset: Int, line: Int? = nil, column: Int? = nil, detail: String) {
        self.kind = kind
        self.offset = offset
        self.line = line ?? 1
        self.column = column ?? offset + 1
        self.detail = detail
    }

    /// For example `invalid JSON at byte 17 (line 1, column 18): unterminated string`.
    public var description: String {
        "invalid JSON at byte \(offset) (line \(line), column \(column)): \(detail)"
    }
}
