/// Makes untrusted text safe for one line of the text log format,
/// `TIME LEVEL label: message key=value key="a value"`.
///
/// File names, calendar titles and error messages come from users: a newline in one would
/// start a line that looks like the daemon's own, and a space or `=` in a metadata value would
/// add a field. Control characters (C0, DEL, C1, the Unicode line and paragraph separators) are
/// written as `\n`, `\r`, `\t` or `\u{XX}`, and a backslash as `\\`, so every escape is
/// unambiguous; a metadata value with a space, `=`, `"` or nothing at all is quoted.
enum LogTextEscaping {
    /// A message: control characters and backslashes escaped.
    static func message(_ text: String) -> String {
        escaped(text, quoting: false)
    }

    /// A metadata key: escaped, and spaces, `=` and quotes escaped too, since a key is never quoted.
    static func key(_ text: String) -> String {
        var result = ""
        for scalar in escaped(text, quoting: false).unicodeScalars {
            switch scalar {
            case " ": result += "\\u{20}"
            case "=": result += "\\u{3D}"
            case "\"": result += "\\\""
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A metadata value: escaped, and quoted (with `"` escaped) when it holds a delimiter.
    static func value(_ text: String) -> String {
        let needsQuotes = text.isEmpty || text.unicodeScalars.contains { $0 == " " || $0 == "=" || $0 == "\"" }
        return needsQuotes ? "\"" + escaped(text, quoting: true) + "\"" : escaped(text, quoting: false)
    }

    private static func escaped(_ text: String, quoting: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\"" where quoting: result += "\\\""
            case _ where isControl(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
