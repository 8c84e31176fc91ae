import Foundation
import StenoCore

/// A `VTIMEZONE` component: a TZID and its STANDARD/DAYLIGHT observances.
///
/// Steno uses these rules only for TZIDs that are not IANA names (a calendar's own
/// "Custom Central", an Outlook zone), as icalendar does; IANA names use the system tz data.
public struct VTimeZone: Sendable, Hashable {
    /// The TZID, without quotes.
    public var tzid: String
    /// The zone built from the observances.
    public var zone: ObservanceTimeZone

    /// Creates a VTIMEZONE value from its observances.
    public init(tzid: String, observances: [ObservanceTimeZone.Observance]) {
        self.tzid = tzid
        zone = ObservanceTimeZone(identifier: tzid, observances: observances)
    }

    /// The zone as ``TimeZoneRules``.
    public var rules: TimeZoneRules { .observances(zone) }

    init(component: ICalComponent) throws(ICalendarError) {
        guard let tzidLine = component.first("TZID") else {
            throw ICalendarError(line: component.line, message: "VTIMEZONE has no TZID")
        }
        let tzid = ICalDateValue.cleanTZID(tzidLine.text)
        var observances: [ObservanceTimeZone.Observance] = []
        for child in component.children where child.name == "STANDARD" || child.name == "DAYLIGHT" {
            guard let dtstart = child.first("DTSTART"), let from = child.first("TZOFFSETFROM"), let to = child.first("TZOFFSETTO") else {
                throw ICalendarError(line: child.line, message: "\(child.name) in VTIMEZONE \(tzid) needs DTSTART, TZOFFSETFROM and TZOFFSETTO")
            }
            let start = try ICalEvent.dateValue(dtstart).local
            let offsetFrom = try Self.offset(from)
            let offsetTo = try Self.offset(to)
            var rules: [RecurrenceRule] = []
            for line in child.all("RRULE") {
                do { rules.append(try RecurrenceRule(parsing: line.value)) } catch {
                    throw ICalendarError(line: line.line, message: "\(error.description) in VTIMEZONE \(tzid)")
                }
            }
            var rdates: [LocalDateTime] = []
            for line in child.all("RDATE") {
                for item in ContentLine.splitList(line.value) where !item.isEmpty {
                    let startText = String(item.split(separator: "/").first ?? "")
                    rdates.append(try ICalEvent.dateValue(line, text: startText).local)
                }
            }
            observances.append(.init(isDaylight: child.name == "DAYLIGHT", start: start, offsetFrom: offsetFrom,
                                     offsetTo: offsetTo, rules: rules, rdates: rdates, name: child.first("TZNAME")?.text))
        }
        guard !observances.isEmpty else {
            throw ICalendarError(line: component.line, message: "VTIMEZONE \(tzid) has no STANDARD or DAYLIGHT observance")
        }
        self.init(tzid: tzid, observances: observances)
    }

    /// Parses a UTC offset such as `+0100`, `-0500` or `+053000` into seconds.
    static func offset(_ line: ContentLine) throws(ICalendarError) -> Int {
        let text = line.value.trimmingCharacters(in: .whitespaces)
        let sign: Int
        switch text.first {
        case "+": sign = 1
        case "-": sign = -1
        default: throw ICalendarError(line: line.line, message: "\(line.name) '\(text)' must look like +0100 or -0500")
        }
        let digits = text.dropFirst()
        guard digits.count == 4 || digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(digits) else {
            throw ICalendarError(line: line.line, message: "\(line.name) '\(text)' must look like +0100 or -0500")
        }
        let (h, m, s) = digits.count == 4 ? (value / 100, value % 100, 0) : (value / 10_000, value / 100 % 100, value % 100)
        guard h < 24, m < 60, s < 60 else { throw ICalendarError(line: line.line, message: "\(line.name) '\(text)' is out of range") }
        return sign * (h * 3600 + m * 60 + s)
    }
}
