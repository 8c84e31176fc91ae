import StenoJSON

/// Why a TOML document was rejected, with the one-based line and column (in characters).
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One-based line of the problem.
    public let line: Int
    /// One-based column (in Unicode scalars) of the problem.
    public let column: Int
    /// What is wrong, e.g. `duplicate key "workers"`.
    public let message: String

    /// Creates an error at a position.
    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// For example `TOML error at line 7, column 1: duplicate key "workers"`.
    public var description: String { "TOML error at line \(line), column \(column): \(message)" }
}

/// Reads TOML 1.0 documents into a `JSONValue` tree, which `JSONValueDecoder` then turns into
/// typed configuration.
///
/// Mapping: tables → objects, arrays and arrays of tables → arrays, strings → `.string`,
/// integers → `.int`, floats → `.double` (`inf` / `nan` map to the non-finite doubles; a float
/// that overflows a double, like `1e400`, is an error),
/// booleans → `.bool`. Offset date-times, local date-times, local dates and local times become
/// `.string`s in ISO 8601 form as written, normalized to an upper-case `T` separator and `Z`
/// (e.g. `1979-05-27 07:32:00z` → `"1979-05-27T07:32:00Z"`). CRLF line endings inside
/// multi-line strings read as LF; a leading byte-order mark is skipped. Arrays and inline tables
/// may nest at most 128 levels.
public enum TOMLReader {
    /// Parses a whole TOML document; the result is always an `.object`.
    public static func parse(_ text: String) throws(TOMLError) -> JSONValue {
        var parser = _TOMLParser(bytes: Array(text.utf8))
        return try parser.parseDocument()
    }
}

/// A table under construction. Reference semantics let `[a.b]` headers and dotted keys reach
/// back into tables created earlier.
final class _TOMLTable {
    /// How the table came to exist; decides which later definitions are legal.
    enum Origin {
        case explicit  // the root, a `[header]`, or an element of `[[array]]`
        case implicit  // an intermediate of a header such as `a` in `[a.b]`; may be defined later
        case dotted  // created by a dotted key such as `a.b = 1`; closed to headers
    }

    var origin: Origin
    var entries: [String: _TOMLNode] = [:]

    init(_ origin: Origin) { self.origin = origin }

    var json: JSONValue {
        .object(entries.mapValues { node in
            switch node {
            case .value(let value): return value
            case .table(let table): return table.json
            case .tableArray(let tables): return .array(tables.map(\.json))
            }
        })
    }
}

enum _TOMLNode {
    /// Any finished value, including static arrays and inline tables (both immutable).
    case value(JSONValue)
    case table(_TOMLTable)
    case tableArray([_TOMLTable])
}

struct _TOMLParser {
    let bytes: [UInt8]
    var index = 0
    let root = _TOMLTable(.explicit)
    var current: _TOMLTable
    static let maxDepth = 128

    init(bytes: [UInt8]) {
        self.bytes = bytes
        self.current = root
        // Editors on some platforms start files with a UTF-8 byte-order mark; it carries no data.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    // MARK: Document structure

    mutating func parseDocument() throws(TOMLError) -> JSONValue {
        while true {
            skipSpaces()
            guard index < bytes.count else { break }
            switch bytes[index] {
            case UInt8(ascii: "#"), 0x0A, 0x0D:
                try expectLineEnd(after: "")
            case UInt8(ascii: "["):
                try parseHeader()
                try expectLineEnd(after: "a table header")
            default:
                try parseKeyValue(into: current)
                try expectLineEnd(after: "a key/value pair")
            }
        }
        return root.json
    }

    /// Skips spaces and tabs.
    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    /// Requires the rest of the line to be blank or a comment, and consumes the newline.
    mutating func expectLineEnd(after what: String) throws(TOMLError) {
        skipSpaces()
        if index < bytes.count, bytes[index] == UInt8(ascii: "#") { try skipComment() }
        guard index < bytes.count else { return }
        if try consumeNewline() { return }
        throw fail("expected the end of the line after \(what), found \(describe(index))")
    }

    /// Consumes LF or CRLF; false when the next byte is neither. A bare CR is an error.
    mutating func consumeNewline() throws(TOMLError) -> Bool {
        guard index < bytes.count else { return false }
        if bytes[index] == 0x0A {
            index += 1
            return true
        }
        if bytes[index] == 0x0D {
            guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else {
                throw fail("carriage return not followed by a line feed")
            }
            index += 2
            return true
        }
        return false
    }

    mutating func skipComment() throws(TOMLError) {
        index += 1
        while index < bytes.count, bytes[index] != 0x0A {
            let byte = bytes[index]
            if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { return }
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                throw fail("control character \(describe(index)) in a comment")
            }
            index += 1
        }
    }

    /// Skips blank space, newlines and comments (inside arrays).
    mutating func skipBlankLines() throws(TOMLError) {
        while true {
            skipSpaces()
            guard index < bytes.count else { return }
            if bytes[index] == UInt8(ascii: "#") {
                try skipComment()
            } else if try !consumeNewline() {
                return
            }
        }
    }

    // MARK: Tables

    mutating func parseHeader() throws(TOMLError) {
        let start = index
        let isArray = index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "[")
        index += isArray ? 2 : 1
        skipSpaces()
        let keys = try parseKeyPath()
        skipSpaces()
        let closing = isArray ? "]]" : "]"
        for offset in 0..<closing.utf8.count {
            guard index + offset < bytes.count, bytes[index + offset] == UInt8(ascii: "]") else {
                throw fail("expected '\(closing)' to close the table header, found \(describe(index + offset))", at: index + offset)
            }
        }
        index += closing.utf8.count
        let name = keys.map(Self.quoteKey).joined(separator: ".")

        var table = root
        for key in keys.dropLast() {
            switch table.entries[key] {
            case nil:
                let created = _TOMLTable(.implicit)
                table.entries[key] = .table(created)
                table = created
            case .table(let existing):
                table = existing
            case .tableArray(let tables):
                guard let last = tables.last else { throw fail("empty array of tables \(key)", at: start) }
                table = last
            case .value:
                throw fail("cannot define table [\(name)]: key \(Self.quoteKey(key)) already holds a value", at: start)
            }
        }
        guard let last = keys.last else { throw fail("empty table name", at: start) }

        if isArray {
            let element = _TOMLTable(.explicit)
            switch table.entries[last] {
            case nil:
                table.entries[last] = .tableArray([element])
            case .tableArray(var tables):
                tables.append(element)
                table.entries[last] = .tableArray(tables)
            default:
                throw fail("cannot define array of tables [[\(name)]]: \(name) is already defined as something else", at: start)
            }
            current = element
            return
        }
        switch table.entries[last] {
        case nil:
            let created = _TOMLTable(.explicit)
            table.entries[last] = .table(created)
            current = created
        case .table(let existing) where existing.origin == .implicit:
            existing.origin = .explicit
            current = existing
        case .table(let existing) where existing.origin == .dotted:
            throw fail("table [\(name)] was already defined by dotted keys", at: start)
        case .table:
            throw fail("table [\(name)] is defined more than once", at: start)
        case .tableArray:
            throw fail("[\(name)] is an array of tables; use [[\(name)]] to add an element", at: start)
        case .value:
            throw fail("cannot define table [\(name)]: \(name) already holds a value", at: start)
        }
    }

    /// Parses `key = value` and stores it in `table` (dotted keys create sub-tables).
    mutating func parseKeyValue(into table: _TOMLTable, depth: Int = 0) throws(TOMLError) {
        let start = index
        let keys = try parseKeyPath()
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
            throw fail("expected '=' after the key \(keys.map(Self.quoteKey).joined(separator: ".")), found \(describe(index))")
        }
        index += 1
        skipSpaces()
        let value = try parseValue(depth: depth)
        try insert(value, at: keys, into: table, keyOffset: start)
    }

    func insert(_ value: JSONValue, at keys: [String], into table: _TOMLTable, keyOffset: Int) throws(TOMLError) {
        var target = table
        for (position, key) in keys.dropLast().enumerated() {
            // Only error messages need the dotted path, so build it lazily.
            var path: String { keys[...position].map(Self.quoteKey).joined(separator: ".") }
            switch target.entries[key] {
            case nil:
                let created = _TOMLTable(.dotted)
                target.entries[key] = .table(created)
                target = created
            case .table(let existing) where existing.origin == .dotted:
                target = existing
            case .table:
                throw fail("cannot add keys to table \(path) with dotted keys: it is defined by a [table] header", at: keyOffset)
            case .tableArray:
                throw fail("cannot add keys to array of tables \(path) with dotted keys", at: keyOffset)
            case .value:
                throw fail("key \(path) already holds a value, so it cannot be a table", at: keyOffset)
            }
        }
        guard let last = keys.last else { throw fail("empty key", at: keyOffset) }
        guard target.entries[last] == nil else {
            throw fail("duplicate key \(keys.map(Self.quoteKey).joined(separator: "."))", at: keyOffset)
        }
        target.entries[last] = .value(value)
    }

    // MARK: Keys

    /// Parses `a.b."c d".'e'`, allowing spaces around the dots.
    mutating func parseKeyPath() throws(TOMLError) -> [String] {
        var keys: [String] = []
        while true {
            skipSpaces()
            keys.append(try parseSimpleKey())
            skipSpaces()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ".") else { return keys }
            index += 1
        }
    }

    mutating func parseSimpleKey() throws(TOMLError) -> String {
        guard index < bytes.count else { throw fail("expected a key, found end of input") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            if startsWith("\"\"\"") { throw fail("a key cannot be a multi-line string") }
            return try parseBasicString()
        case UInt8(ascii: "'"):
            if startsWith("'''") { throw fail("a key cannot be a multi-line string") }
            return try parseLiteralString()
        default:
            let start = index
            while index < bytes.count, Self.isBareKeyByte(bytes[index]) { index += 1 }
            guard index > start else { throw fail("expected a key, found \(describe(index))") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    static func quoteKey(_ key: String) -> String {
        if !key.isEmpty, key.utf8.allSatisfy(isBareKeyByte) { return key }
        return JSONValue.string(key).serializedString
    }

    // MARK: Errors and helpers

    func startsWith(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        return true
    }

    /// An error at `offset` (default: the current position) with line and column.
    func fail(_ message: String, at offset: Int? = nil) -> TOMLError {
        let position = min(offset ?? index, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[..<position] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return TOMLError(line: line, column: column, message: message)
    }

    func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        switch byte {
        case 0x0A: return "end of line"
        case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }
}

// MARK: - Values

extension _TOMLParser {
    mutating func parseValue(depth: Int) throws(TOMLError) -> JSONValue {
        guard index < bytes.count else { throw fail("expected a value, found end of input") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return .string(startsWith("\"\"\"") ? try parseMultilineString(literal: false) : try parseBasicString())
        case UInt8(ascii: "'"):
            return .string(startsWith("'''") ? try parseMultilineString(literal: true) : try parseLiteralString())
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1)
        case UInt8(ascii: "{"):
            return try parseInlineTable(depth: depth + 1)
        default:
            return try parseScalarToken()
        }
    }

    mutating func parseArray(depth: Int) throws(TOMLError) -> JSONValue {
        let open = index
        guard depth <= Self.maxDepth else { throw fail("arrays and inline tables nested deeper than \(Self.maxDepth) levels") }
        index += 1
        var elements: [JSONValue] = []
        while true {
            try skipBlankLines()
            guard index < bytes.count else { throw fail("unterminated array (opened at line \(fail("", at: open).line))") }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            elements.append(try parseValue(depth: depth))
            try skipBlankLines()
            guard index < bytes.count else { throw fail("unterminated array (opened at line \(fail("", at: open).line))") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw fail("expected ',' or ']' in an array, found \(describe(index))")
            }
        }
    }

    /// `{ a = 1, b.c = "x" }`: one line, no trailing comma (TOML 1.0).
    mutating func parseInlineTable(depth: Int) throws(TOMLError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw fail("arrays and inline tables nested deeper than \(Self.maxDepth) levels") }
        index += 1
        let table = _TOMLTable(.explicit)
        skipSpaces()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return table.json
        }
        while true {
            skipSpaces()
            guard index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D else {
                throw fail("unterminated inline table (inline tables must be on one line)")
            }
            if bytes[index] == UInt8(ascii: "}") { throw fail("trailing comma in an inline table") }
            try parseKeyValue(into: table, depth: depth)
            skipSpaces()
            guard index < bytes.count else { throw fail("unterminated inline table") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return table.json
            case 0x0A, 0x0D: throw fail("unterminated inline table (inline tables must be on one line)")
            default: throw fail("expected ',' or '}' in an inline table, found \(describe(index))")
            }
        }
    }

    // MARK: Strings

    mutating func parseBasicString() throws(TOMLError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &out)
            case 0x0A, 0x0D:
                throw fail("unterminated string (a single-line string cannot contain a newline; use \"\"\" for multi-line)")
            default:
                try checkStringByte(byte)
                out.append(byte)
                index += 1
            }
        }
    }

    mutating func parseLiteralString() throws(TOMLError) -> String {
        index += 1
        let start = index
        while true {
            guard index < bytes.count else { throw fail("unterminated literal string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            if byte == 0x0A || byte == 0x0D {
                throw fail("unterminated literal string (use ''' for multi-line)")
            }
            try checkStringByte(byte)
            index += 1
        }
    }

    /// `"""…"""` or `'''…'''`: a newline right after the opening is dropped, CRLF reads as LF,
    /// up to two quotes may touch the closing delimiter, and (basic only) a backslash at the end
    /// of a line trims the following whitespace and newlines.
    mutating func parseMultilineString(literal: Bool) throws(TOMLError) -> String {
        let quote = literal ? UInt8(ascii: "'") : UInt8(ascii: "\"")
        index += 3
        _ = try consumeNewline()
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("unterminated multi-line string") }
            let byte = bytes[index]
            if byte == quote {
                var run = 0
                while index + run < bytes.count, bytes[index + run] == quote { run += 1 }
                index += run
                if run < 3 {
                    out.append(contentsOf: repeatElement(quote, count: run))
                    continue
                }
                guard run <= 5 else { throw fail("too many quotes at the end of a multi-line string", at: index - run + 5) }
                out.append(contentsOf: repeatElement(quote, count: run - 3))
                return String(decoding: out, as: UTF8.self)
            }
            if try consumeNewline() {
                out.append(0x0A)
            } else if byte == UInt8(ascii: "\\") && !literal {
                if try !skipLineEndingBackslash() { try parseEscape(into: &out) }
            } else {
                try checkStringByte(byte)
                out.append(byte)
                index += 1
            }
        }
    }

    /// At a backslash: when only spaces follow up to the end of the line, skips them and all
    /// blank space after; returns false (consuming nothing) otherwise.
    mutating func skipLineEndingBackslash() throws(TOMLError) -> Bool {
        var probe = index + 1
        while probe < bytes.count, bytes[probe] == 0x20 || bytes[probe] == 0x09 { probe += 1 }
        guard probe < bytes.count, bytes[probe] == 0x0A || (bytes[probe] == 0x0D) else { return false }
        index = probe
        while index < bytes.count {
            if bytes[index] == 0x20 || bytes[index] == 0x09 {
                index += 1
            } else if try !consumeNewline() {
                break
            }
        }
        return true
    }

    func checkStringByte(_ byte: UInt8) throws(TOMLError) {
        if (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            throw fail("control character \(describe(index)) in a string (use an escape such as \\u0000)")
        }
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(TOMLError) {
        let start = index
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let digits = letter == UInt8(ascii: "u") ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<digits {
                guard index < bytes.count, let digit = Self.hexDigit(bytes[index]) else {
                    throw fail("\\\(Character(Unicode.Scalar(letter))) escape needs \(digits) hex digits", at: start)
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw fail("escape \\\(Character(Unicode.Scalar(letter)))\(String(value, radix: 16, uppercase: true)) is not a Unicode scalar value", at: start)
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw fail("invalid escape \\\(describe(index - 1)) (allowed: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)", at: start)
        }
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

// MARK: - Numbers, booleans, dates and times

extension _TOMLParser {
    /// Reads a bare token (booleans, numbers, inf/nan, dates and times) and classifies it.
    mutating func parseScalarToken() throws(TOMLError) -> JSONValue {
        let start = index
        while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
        // A date-time may use a space instead of `T`: `1979-05-27 07:32:00`.
        if index - start == 10, index + 3 < bytes.count, bytes[index] == 0x20,
           Self.isDigit(bytes[index + 1]), Self.isDigit(bytes[index + 2]), bytes[index + 3] == UInt8(ascii: ":"),
           bytes[start + 4] == UInt8(ascii: "-") {
            index += 1
            while index < bytes.count, Self.isTokenByte(bytes[index]) { index += 1 }
        }
        guard index > start else { throw fail("expected a value, found \(describe(index))") }
        let token = Array(bytes[start..<index])
        let text = String(decoding: token, as: UTF8.self)
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .double(.infinity)
        case "-inf": return .double(-.infinity)
        case "nan", "+nan", "-nan": return .double(.nan)
        default: break
        }
        if token.count >= 10, token[4] == UInt8(ascii: "-"), token[7] == UInt8(ascii: "-") {
            guard let value = Self.dateTime(token) else { throw fail("invalid date or date-time \(text)", at: start) }
            return .string(value)
        }
        if token.count >= 8, token[2] == UInt8(ascii: ":") {
            guard let value = Self.time(token[...]) else { throw fail("invalid time \(text)", at: start) }
            return .string(value)
        }
        if let integer = try integer(token, text: text, at: start) { return .int(integer) }
        guard let float = Self.float(token) else { throw fail("invalid value \(text)", at: start) }
        guard float.isFinite else { throw fail("float \(text) is out of range", at: start) }
        return .double(float)
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    /// Digits (per `isDigit`) with single underscores only between digits.
    static func validDigits(_ digits: ArraySlice<UInt8>, isDigit: (UInt8) -> Bool = isDigit) -> Bool {
        guard let first = digits.first, let last = digits.last, isDigit(first), isDigit(last) else { return false }
        var previousUnderscore = false
        for byte in digits {
            if byte == UInt8(ascii: "_") {
                if previousUnderscore { return false }
                previousUnderscore = true
            } else {
                guard isDigit(byte) else { return false }
                previousUnderscore = false
            }
        }
        return true
    }

    /// An integer, nil when the token is not integer-shaped (so it may be a float); throws for
    /// integer-shaped tokens that break the rules.
    func integer(_ token: [UInt8], text: String, at start: Int) throws(TOMLError) -> Int64? {
        if token.count > 2, token[0] == UInt8(ascii: "0"), [UInt8(ascii: "x"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(token[1]) {
            let radix = token[1] == UInt8(ascii: "x") ? 16 : token[1] == UInt8(ascii: "o") ? 8 : 2
            let digits = token[2...]
            guard Self.validDigits(digits, isDigit: { (Self.hexDigit($0).map { Int($0) < radix }) ?? false }) else {
                throw fail("invalid base-\(radix) integer \(text)", at: start)
            }
            guard let value = Int64(String(decoding: digits.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self), radix: radix) else {
                throw fail("integer \(text) does not fit in 64 bits", at: start)
            }
            return value
        }
        var digits = token[...]
        if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard digits.allSatisfy({ Self.isDigit($0) || $0 == UInt8(ascii: "_") }) else { return nil }
        guard Self.validDigits(digits) else { throw fail("invalid integer \(text)", at: start) }
        if digits.count > 1, digits.first == UInt8(ascii: "0") { throw fail("leading zeros are not allowed: \(text)", at: start) }
        guard let value = Int64(String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)) else {
            throw fail("integer \(text) does not fit in 64 bits", at: start)
        }
        return value
    }

    /// `[+-]int(.frac)?([eE][+-]?exp)?` with at least a fraction or an exponent.
    static func float(_ token: [UInt8]) -> Double? {
        var mantissa = token[...]
        var exponent: ArraySlice<UInt8>?
        if let e = token.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            mantissa = token[..<e]
            var digits = token[(e + 1)...]
            if let sign = digits.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { digits = digits.dropFirst() }
            guard validDigits(digits) else { return nil }
            exponent = digits
        }
        var integerPart = mantissa
        if let sign = integerPart.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { integerPart = integerPart.dropFirst() }
        var fraction: ArraySlice<UInt8>?
        if let dot = integerPart.firstIndex(of: UInt8(ascii: ".")) {
            fraction = integerPart[(dot + 1)...]
            integerPart = integerPart[..<dot]
        }
        guard fraction != nil || exponent != nil, validDigits(integerPart),
              !(integerPart.count > 1 && integerPart.first == UInt8(ascii: "0")) else { return nil }
        if let fraction, !validDigits(fraction) { return nil }
        return Double(String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self))
    }

    /// Validates a date, local date-time or offset date-time and returns its normalized text.
    static func dateTime(_ token: [UInt8]) -> String? {
        guard let year = number(token, 0, 4), let month = number(token, 5, 2), let day = number(token, 8, 2),
              (1...12).contains(month), day >= 1 else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= monthDays[month - 1] else { return nil }
        let date = String(decoding: token[..<10], as: UTF8.self)
        if token.count == 10 { return date }
        guard [UInt8(ascii: "T"), UInt8(ascii: "t"), 0x20].contains(token[10]) else { return nil }
        var rest = token[11...]
        var zone = ""
        if let last = rest.last, last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") {
            zone = "Z"
            rest = rest.dropLast()
        } else if rest.count >= 14, [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(rest[rest.endIndex - 6]) {
            let offset = Array(rest[(rest.endIndex - 6)...])
            guard let hours = number(offset, 1, 2), offset[3] == UInt8(ascii: ":"), let minutes = number(offset, 4, 2),
                  hours < 24, minutes < 60 else { return nil }
            zone = String(decoding: offset, as: UTF8.self)
            rest = rest.dropLast(6)
        }
        guard let time = time(rest) else { return nil }
        return date + "T" + time + zone
    }

    /// Validates `HH:MM:SS(.fraction)?` (seconds are required in TOML 1.0).
    static func time(_ token: ArraySlice<UInt8>) -> String? {
        let bytes = Array(token)
        guard bytes.count >= 8, let hour = number(bytes, 0, 2), bytes[2] == UInt8(ascii: ":"),
              let minute = number(bytes, 3, 2), bytes[5] == UInt8(ascii: ":"), let second = number(bytes, 6, 2),
              hour < 24, minute < 60, second <= 60 else { return nil }
        if bytes.count > 8 {
            guard bytes[8] == UInt8(ascii: "."), bytes.count > 9, bytes[9...].allSatisfy(isDigit) else { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `count` decimal digits at `offset`, or nil.
    static func number(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[offset..<offset + count] {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
