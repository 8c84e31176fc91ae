import StenoJSON

// Values: arrays, inline tables and the four kinds of strings.
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
