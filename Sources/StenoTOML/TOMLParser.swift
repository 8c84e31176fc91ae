import StenoJSON

/// The TOML parser's state and the document structure: key/value lines, `[table]` and
/// `[[array]]` headers, dotted keys, and the rules on redefining tables.
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
