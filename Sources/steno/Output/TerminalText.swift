/// Text from calendars, files and the daemon, made safe to write to a terminal or a CSV file.
///
/// A calendar title can carry escape sequences that recolour or retitle the terminal, a
/// carriage return that overwrites what was printed, or a bidi override that shows a line
/// backwards; none of them may reach the terminal raw.
enum TerminalText {
    /// One cell or value on one line: line breaks and tabs become spaces, other control
    /// characters are escaped as `\xHH`, bidi and zero-width direction marks are dropped.
    static func clean(_ text: String) -> String {
        neutralise(text, keepingNewlines: false)
    }

    /// Several lines of text: like `clean`, but `\n` stays a line break.
    static func cleanLines(_ text: String) -> String {
        neutralise(text, keepingNewlines: true)
    }

    /// Serialized JSON with DEL, C1 and direction controls written as `\uXXXX` escapes (the
    /// serializer escapes only C0); they can stand only inside strings, so the JSON means the same.
    static func escapingJSON(_ json: String) -> String {
        // Nearly all output is safe: return it as is rather than rebuild it scalar by scalar.
        guard json.unicodeScalars.contains(where: { isUnsafe($0) && $0 != "\n" }) else { return json }
        var result = ""
        result.unicodeScalars.reserveCapacity(json.unicodeScalars.count)
        for scalar in json.unicodeScalars {
            if isUnsafe(scalar) && scalar != "\n" {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `escapingJSON` on UTF-8 bytes: the bytes as they are unless one of them may start an
    /// unsafe scalar (a C0 byte other than a line break, DEL, or a lead byte of C1 (`C2`), of
    /// U+061C (`D8`) or of the direction and line separators (`E2`)).
    static func escapingJSON(_ json: [UInt8]) -> [UInt8] {
        guard mayStartUnsafeScalar(json) else { return json }
        return Array(escapingJSON(String(decoding: json, as: UTF8.self)).utf8)
    }

    /// Whether any byte may start an unsafe scalar (see `escapingJSON`). Tested without
    /// branches a block at a time, which the compiler turns into vector instructions: a
    /// byte-by-byte `contains` took 7 ms of every 10 MB printed, this takes 0.6.
    static func mayStartUnsafeScalar(_ json: [UInt8]) -> Bool {
        json.withUnsafeBufferPointer { bytes in
            var start = 0
            while start < bytes.count {
                let end = min(start + 4096, bytes.count)
                var found: UInt8 = 0
                for index in start..<end {
                    let byte = bytes[index]
                    found |= (byte < 0x20 ? 1 : 0) & (byte != 0x0A ? 1 : 0)
                    found |= (byte == 0x7F ? 1 : 0) | (byte == 0xC2 ? 1 : 0) | (byte == 0xD8 ? 1 : 0) | (byte == 0xE2 ? 1 : 0)
                }
                if found != 0 { return true }
                start = end
            }
            return false
        }
    }

    /// The columns `text` takes on a terminal: East Asian wide characters and emoji take two.
    static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { $0 + displayWidth(of: $1) }
    }

    /// The columns one character takes (combining marks belong to their character).
    static func displayWidth(of character: Character) -> Int {
        guard let value = character.unicodeScalars.first?.value else { return 0 }
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// Whether a scalar would change what the terminal shows beyond itself.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar) || isDirectionControl(scalar) || isLineSeparator(scalar)
    }

    private static func neutralise(_ text: String, keepingNewlines: Bool) -> String {
        // Nearly every cell is safe (a listing has tens of thousands): return it as is.
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            append(scalar, to: &result, keepingNewlines: keepingNewlines)
        }
        return result
    }

    private static func append(_ scalar: Unicode.Scalar, to result: inout String, keepingNewlines: Bool) {
        if scalar == "\n" && keepingNewlines {
            result.unicodeScalars.append(scalar)
        } else if scalar == "\n" || scalar == "\r" || scalar == "\t" || isLineSeparator(scalar) {
            result.unicodeScalars.append(" ")
        } else if isControl(scalar) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
        } else if !isDirectionControl(scalar) {
            result.unicodeScalars.append(scalar)
        }
    }

    /// C0 (with ESC), DEL and C1.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Marks and overrides that reorder how a line is shown (U+202E shows text backwards).
    private static func isDirectionControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func isLineSeparator(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0x85
    }
}
