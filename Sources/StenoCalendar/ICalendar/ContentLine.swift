import Foundation

/// One unfolded iCalendar content line: `NAME;PARAM=value;PARAM="q:u;o,ted":value`.
///
/// Names and parameter names are upper-cased (RFC 5545 makes them case-insensitive); parameter
/// values keep their case, lose their quotes and have RFC 6868 `^` escapes decoded. The value is
/// kept raw: only TEXT values are unescaped, by ``ContentLine/unescapeText(_:)``, because
/// other value types (RRULE, URI) use `\`, `;` and `,` differently.
public struct ContentLine: Sendable, Hashable {
    /// Property or `BEGIN`/`END` name, upper-cased.
    public var name: String
    /// Parameters by upper-cased name; multi-valued parameters (`MEMBER="a","b"`) keep each value.
    public var parameters: [String: [String]]
    /// The raw value after the first unquoted `:`.
    public var value: String
    /// The 1-based physical line where this content line starts.
    public var line: Int

    /// Creates a content line.
    public init(name: String, parameters: [String: [String]] = [:], value: String, line: Int) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.line = line
    }

    /// The first value of a parameter.
    public func parameter(_ name: String) -> String? { parameters[name.uppercased()]?.first }

    /// The value as TEXT, with `\\`, `\;`, `\,` and `\n` unescaped.
    public var text: String { Self.unescapeText(value) }

    /// Unescapes an RFC 5545 TEXT value.
    public static func unescapeText(_ raw: String) -> String {
        guard raw.contains("\\") else { return raw }
        var out = ""
        out.reserveCapacity(raw.count)
        var escaping = false
        for ch in raw {
            if escaping {
                switch ch {
                case "n", "N": out.append("\n")
                default: out.append(ch)  // \\ \; \, and lenient \: etc.
                }
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else {
                out.append(ch)
            }
        }
        if escaping { out.append("\\") }
        return out
    }

    /// Splits a TEXT list (`CATEGORIES`, multi-value `EXDATE`) on unescaped commas.
    public static func splitList(_ raw: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaping = false
        for ch in raw {
            if escaping { current.append(ch); escaping = false; continue }
            if ch == "\\" { current.append(ch); escaping = true; continue }
            if ch == "," { parts.append(current); current = ""; continue }
            current.append(ch)
        }
        parts.append(current)
        return parts
    }

    /// Parses one unfolded line.
    public static func parse(_ raw: Substring, line: Int) throws(ICalendarError) -> ContentLine {
        let chars = Array(raw.unicodeScalars)
        var i = 0
        func isNameChar(_ c: Unicode.Scalar) -> Bool {
            (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || (c >= "0" && c <= "9") || c == "-" || c == "_" || c == "."
        }
        while i < chars.count, isNameChar(chars[i]) { i += 1 }
        guard i > 0 else {
            throw ICalendarError(line: line, message: "expected a property name at the start of '\(raw.prefix(40))'")
        }
        var name = String(String.UnicodeScalarView(chars[0..<i])).uppercased()
        // Apple writes grouped names ("item1.URL"); the group is irrelevant here.
        if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
        var parameters: [String: [String]] = [:]
        while i < chars.count, chars[i] == ";" {
            i += 1
            let nameStart = i
            while i < chars.count, isNameChar(chars[i]) { i += 1 }
            let paramName = String(String.UnicodeScalarView(chars[nameStart..<i])).uppercased()
            guard !paramName.isEmpty else {
                throw ICalendarError(line: line, message: "empty parameter name in \(name)")
            }
            guard i < chars.count, chars[i] == "=" else {
                // Tolerate a bare parameter without a value (seen from broken exporters).
                parameters[paramName, default: []].append("")
                continue
            }
            i += 1
            var values: [String] = []
            repeat {
                if i < chars.count, chars[i] == "," { i += 1 }
                var value = String.UnicodeScalarView()
                if i < chars.count, chars[i] == "\"" {
                    i += 1
                    while i < chars.count, chars[i] != "\"" { value.append(chars[i]); i += 1 }
                    guard i < chars.count else {
                        throw ICalendarError(line: line, message: "unterminated quoted value of parameter \(paramName) in \(name)")
                    }
                    i += 1
                } else {
                    while i < chars.count, chars[i] != ";", chars[i] != ":", chars[i] != "," { value.append(chars[i]); i += 1 }
                }
                values.append(decodeCaret(String(value)))
            } while i < chars.count && chars[i] == ","
            parameters[paramName, default: []].append(contentsOf: values)
        }
        guard i < chars.count, chars[i] == ":" else {
            throw ICalendarError(line: line, message: "expected ':' after \(name) and its parameters")
        }
        let value = String(String.UnicodeScalarView(chars[(i + 1)...]))
        return ContentLine(name: name, parameters: parameters, value: value, line: line)
    }

    /// RFC 6868 parameter escaping: `^n` newline, `^'` double quote, `^^` caret.
    private static func decodeCaret(_ s: String) -> String {
        guard s.contains("^") else { return s }
        var out = ""
        var pending = false
        for ch in s {
            if pending {
                switch ch {
                case "n": out.append("\n")
                case "'": out.append("\"")
                case "^": out.append("^")
                default: out.append("^"); out.append(ch)
                }
                pending = false
            } else if ch == "^" {
                pending = true
            } else {
                out.append(ch)
            }
        }
        if pending { out.append("^") }
        return out
    }
}

/// Unfolding of raw iCalendar bytes into logical lines.
enum LineUnfolder {
    /// Splits on CRLF, LF or CR, joins continuation lines (starting with space or tab), and
    /// decodes each logical line as UTF-8 *after* joining, so a fold inside a multi-byte
    /// character is repaired. Returns each line with the physical line number it starts on.
    static func unfold(_ bytes: [UInt8]) -> [(text: Substring, line: Int)] {
        var result: [(Substring, Int)] = []
        var current: [UInt8] = []
        var currentLine = 1
        var physical = 1
        var started = false
        var i = 0
        let n = bytes.count
        // Skip a UTF-8 byte-order mark.
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        func flush() {
            if started {
                let text = String(decoding: current, as: UTF8.self)
                if !text.allSatisfy({ $0 == " " || $0 == "\t" }) { result.append((Substring(text), currentLine)) }
            }
            current.removeAll(keepingCapacity: true)
            started = false
        }
        var lineStart = true
        while i < n {
            let b = bytes[i]
            if b == 0x0D || b == 0x0A {
                if b == 0x0D, i + 1 < n, bytes[i + 1] == 0x0A { i += 1 }
                i += 1
                physical += 1
                lineStart = true
                continue
            }
            if lineStart {
                lineStart = false
                if (b == 0x20 || b == 0x09) && started {
                    i += 1  // continuation: drop the single leading whitespace
                    continue
                }
                flush()
                started = true
                currentLine = physical
            }
            current.append(b)
            i += 1
        }
        flush()
        return result
    }
}
