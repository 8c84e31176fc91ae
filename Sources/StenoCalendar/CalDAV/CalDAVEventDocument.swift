import Foundation

/// iCalendar text for CalDAV writes: a new event, and a rename that changes only the
/// `SUMMARY` lines of an existing object, so everything Steno does not understand (alarms,
/// X- properties, other components) goes back to the server as it came.
enum CalDAVEventDocument {
    /// A VCALENDAR with one VEVENT, times in UTC, CRLF line ends, lines folded at 75 octets.
    static func new(_ event: NewCalendarEvent, uid: String, now: Date) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Steno//Steno//EN", "CALSCALE:GREGORIAN", "BEGIN:VEVENT",
            "UID:\(escape(uid))", "DTSTAMP:\(utc(now))", "CREATED:\(utc(now))", "LAST-MODIFIED:\(utc(now))",
            "DTSTART:\(utc(event.start))", "DTEND:\(utc(max(event.end, event.start)))", "SUMMARY:\(escape(event.title))",
        ]
        if let location = event.location { lines.append("LOCATION:\(escape(location))") }
        if let description = event.description { lines.append("DESCRIPTION:\(escape(description))") }
        lines += ["END:VEVENT", "END:VCALENDAR"]
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// `text` with the SUMMARY of every VEVENT set to `title` (added where a VEVENT has none)
    /// and its LAST-MODIFIED and DTSTAMP brought to `now`; every other line as it was.
    ///
    /// - Throws: ``CalendarWriteError/unsafe(_:)`` when the object holds no VEVENT or is incomplete.
    static func renamed(_ text: String, title: String, now: Date) throws -> String {
        var output: [String] = []
        var depth = 0
        // The depth of the VEVENT being read: its own properties, not a nested VALARM's.
        var eventDepth: Int?
        var eventHasSummary = false
        var events = 0
        let summaryLine = fold("SUMMARY:\(escape(title))")
        for line in unfoldedLines(text) {
            let name = propertyName(line)
            switch name {
            case "BEGIN":
                depth += 1
                if eventDepth == nil, value(line).equalsIgnoringASCIICase("VEVENT") {
                    eventDepth = depth
                    eventHasSummary = false
                    events += 1
                }
            case "END":
                if let current = eventDepth, depth == current {
                    if !eventHasSummary { output.append(summaryLine) }
                    eventDepth = nil
                }
                depth -= 1
            case "SUMMARY" where eventDepth == depth:
                if !eventHasSummary { output.append(summaryLine) }
                eventHasSummary = true
                continue
            case "LAST-MODIFIED" where eventDepth == depth, "DTSTAMP" where eventDepth == depth:
                output.append("\(name):\(utc(now))")
                continue
            default:
                break
            }
            output.append(fold(line))
        }
        guard events > 0 else { throw CalendarWriteError.unsafe("the calendar object holds no VEVENT to rename") }
        // A truncated object would go back to the server with its missing part lost.
        guard depth == 0, eventDepth == nil else {
            throw CalendarWriteError.unsafe("the calendar object is incomplete (a BEGIN without its END); not renamed")
        }
        return output.joined(separator: "\r\n") + "\r\n"
    }

    /// Logical lines: CRLF or LF ends, continuation lines (leading space or tab) joined.
    static func unfoldedLines(_ text: String) -> [String] {
        var lines: [String] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if let first = line.first, first == " " || first == "\t", !lines.isEmpty {
                lines[lines.count - 1] += line.dropFirst()
            } else if !line.isEmpty {
                lines.append(String(line))
            }
        }
        return lines
    }

    /// The property name of a content line, upper-cased (`SUMMARY;LANGUAGE=de:…` → `SUMMARY`).
    static func propertyName(_ line: String) -> String {
        String(line.prefix { $0 != ":" && $0 != ";" }).uppercased()
    }

    /// The value after the first unquoted colon.
    static func value(_ line: String) -> String {
        var quoted = false
        for index in line.indices {
            let character = line[index]
            if character == "\"" { quoted.toggle() }
            if character == ":", !quoted { return String(line[line.index(after: index)...]) }
        }
        return ""
    }

    /// TEXT escaping (RFC 5545 §3.3.11).
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n", "\r\n": escaped += "\\n"
            case "\r": continue
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Folds a line at 75 octets without splitting a UTF-8 sequence (RFC 5545 §3.1).
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }
        var parts: [String] = []
        var current = ""
        var currentBytes = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            let limit = parts.isEmpty ? 75 : 74
            if currentBytes + size > limit {
                parts.append(current)
                current = ""
                currentBytes = 0
            }
            current.unicodeScalars.append(scalar)
            currentBytes += size
        }
        parts.append(current)
        return parts.joined(separator: "\r\n ")
    }

    /// `YYYYMMDDTHHMMSSZ`.
    static func utc(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
