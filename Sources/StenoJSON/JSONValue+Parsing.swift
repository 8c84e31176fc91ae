import Foundation

extension JSONValue {
    /// Parses one JSON text (RFC 8259, strict) from raw bytes.
    ///
    /// - Whitespace (space, tab, CR, LF) may surround the value; anything else after it is
    ///   `.trailingData`. A byte-order mark is not skipped.
    /// - All input must be well-formed UTF-8; `\u` escapes must form valid scalars (a lone
    ///   surrogate is `.invalidEscape`).
    /// - Numbers without fraction or exponent that fit `Int64` become `.int`, others `.double`;
    ///   a number whose magnitude overflows `Double` (e.g. `1e400`) is `.invalidNumber`
    ///   rather than silently becoming infinity. `-0` is `.int(0)`.
    /// - Duplicate object keys: the last one wins.
    /// - Arrays and objects nested more than `maxDepth` levels throw `.tooDeep`, so hostile
    ///   input cannot overflow the stack.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int = 256
    ) throws(JSONParseError) -> JSONValue {
        var parser = _JSONParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// Parses one JSON text from a byte array. See `parse(_:maxDepth:)` for the rules.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parse(buffer, maxDepth: maxDepth) }
        }
        return try result.get()
    }

    /// Parses one JSON text from a byte slice (offsets in errors are relative to the slice).
    public static func parse(_ bytes: ArraySlice<UInt8>, maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parse(buffer, maxDepth: maxDepth) }
        }
        return try result.get()
    }

    /// Parses one JSON text from `Data`.
    public static func parse(_ data: Data, maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
        let result = data.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parse(buffer, maxDepth: maxDepth) }
        }
        return try result.get()
    }

    /// Parses one JSON text from a string (its UTF-8 form).
    public static func parse(_ text: String, maxDepth: Int = 256) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) in
                try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
            }
        }
        return try result.get()
    }
}

/// One object member; a struct rather than a tuple so arrays of it avoid generic tuple metadata.
struct _JSONMember {
    var key: String
    var value: JSONValue
}

/// A recursive-descent parser over a borrowed byte buffer.
///
/// It reads bytes by index straight from the buffer and builds strings from validated slices,
/// so the only allocations are the resulting values themselves.
struct _JSONParser {
    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// Reused for strings that contain escapes (kept across strings to avoid reallocating).
    var scratch: [UInt8] = []
    /// Members of the objects being parsed, as a stack shared by all nesting levels: each object
    /// collects its members here and then builds its dictionary at the right size in one go,
    /// instead of growing (and rehashing) it member by member.
    var pendingMembers: [_JSONMember] = []

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        try finishDocument()
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "expected a value, found end of input")
        }
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            throw unexpected(at: index, expecting: "a value")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        let start = word.utf8Start
        for offset in 0..<count {
            guard index + offset < bytes.count else {
                throw error(.unexpectedEnd, at: bytes.count, "input ended inside '\(word)'")
            }
            if bytes[index + offset] != start[offset] {
                throw unexpected(at: index + offset, expecting: "'\(word)'")
            }
        }
        index += count
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        let open = index
        var elements: [JSONValue] = []
        if try openContainer(closing: UInt8(ascii: "]")) { return .array(elements) }
        defer { depth -= 1 }
        repeat {
            elements.append(try parseValue())
        } while try !skipSeparator(inContainerAt: open)
        return .array(elements)
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        let open = index
        if try openContainer(closing: UInt8(ascii: "}")) { return .object([:]) }
        defer { depth -= 1 }
        let firstMember = pendingMembers.count
        if pendingMembers.capacity == 0 { pendingMembers.reserveCapacity(16) }  // one allocation per parse
        repeat {
            try expectKey(inObjectAt: open)
            let key = try parseString()
            try skipColon(inObjectAt: open)
            pendingMembers.append(_JSONMember(key: key, value: try parseValue()))
        } while try !skipSeparator(inContainerAt: open)
        var members = [String: JSONValue](minimumCapacity: pendingMembers.count - firstMember)
        for position in firstMember..<pendingMembers.count {
            members[pendingMembers[position].key] = pendingMembers[position].value  // last duplicate wins
        }
        pendingMembers.removeSubrange(firstMember...)
        return .object(members)
    }

    // MARK: Steps of arrays and objects (shared with reprinting)

    /// Enters the array or object opening at `index` and skips its bracket and whitespace;
    /// true when it is empty (its `closing` bracket skipped too, the level left again).
    @inline(__always)
    mutating func openContainer(closing: UInt8) throws(JSONParseError) -> Bool {
        try enterContainer(at: index)
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == closing else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// Checks that a member's key starts at `index`.
    @inline(__always)
    func expectKey(inObjectAt open: Int) throws(JSONParseError) {
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "unterminated object (opened at byte \(open))")
        }
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw unexpected(at: index, expecting: "a string key")
        }
    }

    /// Skips the colon after a key, with the whitespace around it.
    @inline(__always)
    mutating func skipColon(inObjectAt open: Int) throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "unterminated object (opened at byte \(open))")
        }
        guard bytes[index] == UInt8(ascii: ":") else {
            throw unexpected(at: index, expecting: "':' after an object key")
        }
        index += 1
        skipWhitespace()
    }

    /// After an element or member of the container opened at `open`: skips a comma and
    /// returns false, or skips the closing bracket and returns true.
    @inline(__always)
    mutating func skipSeparator(inContainerAt open: Int) throws(JSONParseError) -> Bool {
        let isObject = bytes[open] == UInt8(ascii: "{")
        skipWhitespace()
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "unterminated \(isObject ? "object" : "array") (opened at byte \(open))")
        }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            skipWhitespace()
            return false
        case isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"):
            index += 1
            return true
        default:
            throw unexpected(at: index, expecting: isObject ? "',' or '}' after an object member" : "',' or ']' after an array element")
        }
    }

    mutating func enterContainer(at offset: Int) throws(JSONParseError) {
        depth += 1
        if depth > maxDepth {
            depth -= 1
            throw error(.tooDeep, at: offset, "nesting deeper than \(maxDepth) levels")
        }
    }

    // MARK: Numbers

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "number ends after '-'")
        }
        let firstDigit = index
        guard isDigit(bytes[index]) else {
            throw error(.invalidNumber, at: index, "expected a digit, found \(describeByte(at: index))")
        }
        // Accumulate as a negative magnitude so Int64.min fits; overflow falls back to Double.
        var magnitude: Int64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error(.invalidNumber, at: firstDigit, "leading zeros are not allowed in numbers")
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int64(bytes[index] &- UInt8(ascii: "0"))
                if !overflow {
                    let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times10.subtractingReportingOverflow(digit)
                    if o1 || o2 { overflow = true } else { magnitude = next }
                }
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try requireDigits(after: "'.'")
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try requireDigits(after: "the exponent marker")
        }
        if isInteger && !overflow {
            if negative { return .int(magnitude) }
            if magnitude != Int64.min { return .int(-magnitude) }
        }
        return .double(try doubleValue(from: start, to: index))
    }

    mutating func requireDigits(after what: String) throws(JSONParseError) {
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "number ends after \(what)")
        }
        guard isDigit(bytes[index]) else {
            throw error(.invalidNumber, at: index, "expected a digit after \(what), found \(describeByte(at: index))")
        }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    func doubleValue(from start: Int, to end: Int) throws(JSONParseError) -> Double {
        // Short numbers become small (heap-free) strings; the grammar was already checked.
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error(.invalidNumber, at: start, "number \(text) is out of range for a double")
        }
        return value
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: Whitespace

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    // MARK: Errors

    func error(_ kind: JSONParseError.Kind, at offset: Int, _ detail: String) -> JSONParseError {
        var line = 1
        var lineStart = 0
        for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return JSONParseError(kind: kind, offset: offset, line: line, column: offset - lineStart + 1, detail: detail)
    }

    /// An error for a byte that does not fit the grammar; non-ASCII bytes that are not even
    /// valid UTF-8 are reported as such.
    func unexpected(at offset: Int, expecting: String) -> JSONParseError {
        guard offset < bytes.count else {
            return error(.unexpectedEnd, at: offset, "expected \(expecting), found end of input")
        }
        if bytes[offset] >= 0x80, _JSONUTF8.sequenceLength(in: bytes, at: offset) == nil {
            return error(.invalidUTF8, at: offset, "invalid UTF-8 byte 0x\(String(bytes[offset], radix: 16, uppercase: true))")
        }
        return error(.unexpectedCharacter, at: offset, "expected \(expecting), found \(describeByte(at: offset))")
    }

    func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if let length = _JSONUTF8.sequenceLength(in: bytes, at: offset), length > 1 {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
            return "'\(text)'"
        }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }
}
