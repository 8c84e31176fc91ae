import Foundation
import StenoCore

extension ICalEvent {
    /// Builds an event from a parsed `VEVENT` component.
    ///
    /// Fails (with the line of the offending property) when `DTSTART` is missing or a value
    /// that decides *when* the event happens is malformed; other broken properties are ignored
    /// (unparseable lines are reported by the parser as warnings).
    init(component: ICalComponent) throws(ICalendarError) {
        guard let dtstart = component.first("DTSTART") else {
            let uid = component.first("UID")?.text ?? "?"
            throw ICalendarError(line: component.line, message: "VEVENT (UID \(uid)) has no DTSTART; every event needs a start")
        }
        let start = try Self.dateValue(dtstart)
        self.init(uid: component.first("UID")?.text.trimmingCharacters(in: .whitespaces) ?? "", start: start)
        line = component.line
        for property in component.properties {
            switch property.name {
            case "RECURRENCE-ID":
                recurrenceID = try Self.dateValue(property)
                recurrenceIDThisAndFuture = property.parameter("RANGE")?.equalsIgnoringASCIICase("THISANDFUTURE") == true
            case "SEQUENCE": sequence = Int(property.value.trimmingCharacters(in: .whitespaces)) ?? 0
            case "SUMMARY": summary = property.text
            case "DESCRIPTION": description = property.text
            case "LOCATION": location = property.text
            case "DTEND": end = try Self.dateValue(property)
            case "DURATION":
                do { duration = try ICalDuration(parsing: property.value) } catch { throw ICalendarError(line: property.line, message: error.message) }
            case "STATUS": status = Status(rawValue: property.value.trimmingCharacters(in: .whitespaces).uppercased())
            case "ORGANIZER": organizer = ICalAttendee(contentLine: property)
            case "ATTENDEE": attendees.append(ICalAttendee(contentLine: property))
            case "URL": url = URL(string: property.value.trimmingCharacters(in: .whitespaces))
            case "RRULE":
                do { rrules.append(try RecurrenceRule(parsing: property.value)) } catch {
                    throw ICalendarError(line: property.line, message: "\(error.description) in '\(property.value.prefix(80))'")
                }
            case "RDATE": rdates += try Self.rdates(property)
            case "EXDATE":
                for item in ContentLine.splitList(property.value) where !item.isEmpty {
                    exdates.append(try Self.dateValue(property, text: item))
                }
            case "LAST-MODIFIED": lastModified = Self.utcInstant(property)
            case "DTSTAMP": dtstamp = Self.utcInstant(property)
            case "CREATED": created = Self.utcInstant(property)
            case "TRANSP": isTransparent = property.value.uppercased().contains("TRANSPARENT")
            case "CATEGORIES": categories += ContentLine.splitList(property.value).map(ContentLine.unescapeText).filter { !$0.isEmpty }
            default:
                if property.name.hasPrefix("X-"), extraProperties[property.name] == nil {
                    extraProperties[property.name] = property.text
                }
            }
        }
        if let end, end.isDate != start.isDate {
            // Mixed DATE/DATE-TIME start and end: RFC 5545 forbids it; keep the start's kind.
            self.end = nil
            if start.isDate { duration = ICalDuration(days: 1) }
        }
        onlineMeetingURL = OnlineMeetingLink.find(in: component, url: url, location: location, description: description)
    }

    /// Parses a date property, attaching the property's line to errors.
    static func dateValue(_ property: ContentLine, text: String? = nil) throws(ICalendarError) -> ICalDateValue {
        do {
            return try ICalDateValue.parse(text ?? property.value, tzid: property.parameter("TZID"), valueType: property.parameter("VALUE"))
        } catch {
            throw ICalendarError(line: property.line, message: "\(property.name): \(error.message)")
        }
    }

    private static func rdates(_ property: ContentLine) throws(ICalendarError) -> [RDate] {
        var result: [RDate] = []
        for item in ContentLine.splitList(property.value) where !item.isEmpty {
            let pieces = item.split(separator: "/", maxSplits: 1).map(String.init)
            let start = try dateValue(property, text: pieces[0])
            if pieces.count == 2 {
                if pieces[1].uppercased().contains("P") {
                    do { result.append(RDate(start: start, duration: try ICalDuration(parsing: pieces[1]))) } catch {
                        throw ICalendarError(line: property.line, message: "RDATE period: \(error.message)")
                    }
                } else {
                    result.append(RDate(start: start, end: try dateValue(property, text: pieces[1])))
                }
            } else {
                result.append(RDate(start: start))
            }
        }
        return result
    }

    /// A UTC timestamp property (`DTSTAMP`, `LAST-MODIFIED`); malformed values are ignored
    /// because they only inform change detection.
    private static func utcInstant(_ property: ContentLine) -> Date? {
        guard let value = try? ICalDateValue.parse(property.value, tzid: nil, valueType: nil) else { return nil }
        return value.local.asUTCInstant
    }
}
