/// UTF-8 well-formedness per Unicode Table 3-7 (no overlongs, no surrogates, ≤ U+10FFFF).
enum _JSONUTF8 {
    /// The length of the well-formed sequence starting at `offset`, or nil when the bytes there
    /// are not well-formed UTF-8 (including a sequence cut off by the end of the buffer).
    @inline(__always)
    static func sequenceLength(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        let lead = bytes[offset]
        if lead < 0x80 { return 1 }
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F  // excludes UTF-16 surrogates
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F  // caps at U+10FFFF
        default: return nil
        }
        guard offset + length <= bytes.count else { return nil }
        let second = bytes[offset + 1]
        guard second >= secondLow && second <= secondHigh else { return nil }
        for position in (offset + 2)..<(offset + length) where bytes[position] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }
}

extension _JSONParser {
    /// Parses a string starting at the opening quote and leaves `index` after the closing one.
    ///
    /// The fast path scans once, validating UTF-8 as it goes, and makes the `String` from the
    /// slice in one step; the first backslash switches to the slow path that unescapes into
    /// `scratch`.
    mutating func parseString() throws(JSONParseError) -> String {
        let open = index
        guard let end = try scanPlainString() else { return try parseEscapedString(openedAt: open) }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(open + 1)..<end]), as: UTF8.self)
    }

    /// Skips the string opening at `index` and returns the offset of its closing quote, when no
    /// backslash comes first; else returns nil with `index` at that backslash. Checks UTF-8 and
    /// raw control bytes on the way.
    @inline(__always)
    mutating func scanPlainString() throws(JSONParseError) -> Int? {
        let open = index
        index += 1
        let end = bytes.count
        while index < end {
            index = Self.skipPlainASCII(bytes, from: index)
            guard index < end else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return index - 1
            }
            if byte == UInt8(ascii: "\\") { return nil }
            try consumeStringByte(byte)
        }
        throw error(.unexpectedEnd, at: index, "unterminated string (opened at byte \(open))")
    }

    /// The rest of the string opened at `open`, from its first backslash at `index`: its plain
    /// start copied, the rest unescaped into `scratch`.
    mutating func parseEscapedString(openedAt open: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[(open + 1)..<index]))
        return try parseEscapedRemainder(openedAt: open)
    }

    /// The offset of the first byte at or after `start` that is not printable ASCII or is a
    /// quote or backslash. Works on locals so the hot loop keeps everything in registers.
    @inline(__always)
    static func skipPlainASCII(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var position = start
        let end = bytes.count
        // Eight bytes at a time (SWAR): stop at the first word holding a control byte, a
        // non-ASCII byte, a quote or a backslash, then find it bytewise below.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while position + 8 <= end {
            let word = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((word &- ones &* 0x20) | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash | word) & highs
            if special != 0 { break }
            position += 8
        }
        while position < end {
            let byte = bytes[position]
            guard byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") else { break }
            position += 1
        }
        return position
    }

    /// Validates and skips one unescaped character (one UTF-8 sequence) inside a string.
    @inline(__always)
    mutating func consumeStringByte(_ byte: UInt8) throws(JSONParseError) {
        if byte < 0x20 {
            throw error(.unexpectedCharacter, at: index,
                        "raw control character 0x\(String(byte, radix: 16, uppercase: true)) in a string (escape it as \\u00XX)")
        }
        if byte < 0x80 {
            index += 1
            return
        }
        guard let length = _JSONUTF8.sequenceLength(in: bytes, at: index) else {
            throw error(.invalidUTF8, at: index, "invalid UTF-8 sequence in a string")
        }
        index += length
    }

    mutating func parseEscapedRemainder(openedAt open: Int) throws(JSONParseError) -> String {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape()
                continue
            }
            let from = index
            try consumeStringByte(byte)
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[from..<index]))
        }
        throw error(.unexpectedEnd, at: index, "unterminated string (opened at byte \(open))")
    }

    /// Decodes one escape sequence starting at the backslash and appends its UTF-8 to `scratch`.
    mutating func parseEscape() throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else {
            throw error(.unexpectedEnd, at: index, "input ended inside an escape sequence")
        }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try parseHex4()
            var scalarValue = UInt32(unit)
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                      bytes[index + 1] == UInt8(ascii: "u") else {
                    if index >= bytes.count || (index + 1 >= bytes.count && bytes[index] == UInt8(ascii: "\\")) {
                        throw error(.unexpectedEnd, at: bytes.count, "input ended after a high surrogate escape")
                    }
                    throw error(.invalidEscape, at: escapeStart, "lone high surrogate \\u\(hex4(unit)) (a low surrogate escape must follow)")
                }
                index += 2
                let low = try parseHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw error(.invalidEscape, at: escapeStart,
                                "high surrogate \\u\(hex4(unit)) followed by \\u\(hex4(low)), which is not a low surrogate")
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw error(.invalidEscape, at: escapeStart, "lone low surrogate \\u\(hex4(unit))")
            }
            appendUTF8(scalarValue)
        default:
            if letter >= 0x80 || letter < 0x20 {
                throw unexpected(at: index - 1, expecting: "an escape letter")
            }
            throw error(.invalidEscape, at: escapeStart,
                        "invalid escape '\\\(Character(Unicode.Scalar(letter)))' (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        }
    }

    /// Appends a scalar value (already known to be valid) as UTF-8.
    mutating func appendUTF8(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (value >> 6)))
            scratch.append(UInt8(0x80 | (value & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (value >> 12)))
            scratch.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (value & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (value >> 18)))
            scratch.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (value & 0x3F)))
        }
    }

    /// Reads four hex digits after `\u`.
    mutating func parseHex4() throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else {
                throw error(.unexpectedEnd, at: index, "input ended inside a \\u escape")
            }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                if byte >= 0x80 && _JSONUTF8.sequenceLength(in: bytes, at: index) == nil {
                    throw error(.invalidUTF8, at: index, "invalid UTF-8 byte in a \\u escape")
                }
                throw error(.invalidEscape, at: index, "expected a hex digit in a \\u escape, found \(describeByte(at: index))")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
