import Foundation

/// Turns iCalendar bytes into a component tree and then into an ``ICalendar``.
///
/// Tolerant on purpose: CRLF, LF or CR line ends; a missing `VCALENDAR` wrapper; lower-case
/// names; unknown components (`VTODO`, `VALARM`, …) and properties are skipped. A problem
/// inside one component drops only that component (reported in ``ICalendar/warnings``);
/// only input that is not iCalendar at all, or whose structure is broken, is thrown.
struct ICalendarParser {
    /// Upper bound on nesting, so hostile input cannot build deep stacks.
    static let maxDepth = 16

    static func parse(bytes: [UInt8]) throws(ICalendarError) -> ICalendar {
        let lines = LineUnfolder.unfold(bytes)
        guard !lines.isEmpty else { throw ICalendarError(line: 1, message: "the input is empty; expected BEGIN:VCALENDAR") }
        var roots: [ICalComponent] = []
        var stack: [ICalComponent] = []
        var topLevel: [ContentLine] = []
        var warnings: [ICalendarError] = []
        var sawBegin = false

        func close() {
            guard let done = stack.popLast() else { return }
            if stack.isEmpty { roots.append(done) } else { stack[stack.count - 1].children.append(done) }
        }

        for (text, lineNumber) in lines {
            let content: ContentLine
            do {
                content = try ContentLine.parse(text, line: lineNumber)
            } catch {
                // A malformed line inside a component spoils only that component.
                if stack.isEmpty {
                    if sawBegin { warnings.append(error); continue }
                    throw error
                }
                stack[stack.count - 1].problems.append(error)
                continue
            }
            switch content.name {
            case "BEGIN":
                let name = content.value.trimmingCharacters(in: .whitespaces).uppercased()
                guard !name.isEmpty else { throw ICalendarError(line: lineNumber, message: "BEGIN without a component name") }
                guard stack.count < maxDepth else {
                    throw ICalendarError(line: lineNumber, message: "components are nested more than \(maxDepth) deep")
                }
                sawBegin = true
                stack.append(ICalComponent(name: name, line: lineNumber))
            case "END":
                let name = content.value.trimmingCharacters(in: .whitespaces).uppercased()
                guard let index = stack.lastIndex(where: { $0.name == name }) else {
                    throw ICalendarError(line: lineNumber, message: "END:\(name) without a matching BEGIN:\(name)")
                }
                // Close components left open inside this one (a missing END), keeping their data.
                while stack.count > index + 1 {
                    let open = stack[stack.count - 1]
                    warnings.append(ICalendarError(line: open.line, message: "BEGIN:\(open.name) is not closed before END:\(name) on line \(lineNumber)"))
                    close()
                }
                close()
            default:
                if stack.isEmpty {
                    guard sawBegin || content.name.hasPrefix("X-") || ["PRODID", "VERSION", "CALSCALE", "METHOD"].contains(content.name) else {
                        throw ICalendarError(line: lineNumber, message: "property \(content.name) outside any component; expected BEGIN:VCALENDAR")
                    }
                    topLevel.append(content)
                } else {
                    stack[stack.count - 1].properties.append(content)
                }
            }
        }
        // Unterminated components (truncated input): events inside them are incomplete, so
        // they are reported; complete components already closed are kept.
        let truncated = !stack.isEmpty
        while let open = stack.last {
            warnings.append(ICalendarError(line: open.line, message: "BEGIN:\(open.name) is never closed (truncated input?)"))
            if open.name == "VCALENDAR" {
                close()
            } else {
                stack.removeLast()
            }
        }
        guard sawBegin else { throw ICalendarError(line: 1, message: "no BEGIN:VCALENDAR or BEGIN:VEVENT found; this is not iCalendar data") }

        var calendar = ICalendar(events: [], timeZones: [:])
        calendar.warnings = warnings
        calendar.isTruncated = truncated
        var properties = topLevel
        var components: [ICalComponent] = []
        for root in roots {
            if root.name == "VCALENDAR" {
                properties += root.properties
                components += root.children
                calendar.warnings += root.problems
            } else {
                components.append(root)
            }
        }
        for property in properties {
            switch property.name {
            case "X-WR-TIMEZONE": calendar.calendarTimeZoneID = ICalDateValue.cleanTZID(property.text)
            case "X-WR-CALNAME": calendar.name = property.text
            case "METHOD": calendar.method = property.value.uppercased()
            default:
                if property.name.hasPrefix("X-"), calendar.extraProperties[property.name] == nil {
                    calendar.extraProperties[property.name] = property.text
                }
            }
        }
        for component in components {
            switch component.name {
            case "VTIMEZONE":
                do {
                    let zone = try VTimeZone(component: component)
                    calendar.timeZones[zone.tzid] = zone
                } catch {
                    calendar.warnings.append(error)
                }
            case "VEVENT":
                // Unreadable lines are reported; the event is kept if what matters is intact.
                calendar.warnings += component.problems
                do {
                    calendar.events.append(try ICalEvent(component: component))
                } catch {
                    calendar.warnings.append(error)
                }
            default:
                continue  // VTODO, VJOURNAL, VFREEBUSY, X- components: not Steno's concern.
            }
        }
        return calendar
    }
}

/// A generic iCalendar component (`BEGIN:NAME` … `END:NAME`) before interpretation.
struct ICalComponent: Sendable {
    /// Upper-cased component name, e.g. `VEVENT`.
    var name: String
    /// Properties in file order.
    var properties: [ContentLine] = []
    /// Nested components.
    var children: [ICalComponent] = []
    /// The line of `BEGIN`.
    var line: Int
    /// Lines that could not be parsed inside this component.
    var problems: [ICalendarError] = []

    /// The first property with a name.
    func first(_ name: String) -> ContentLine? { properties.first { $0.name == name } }

    /// All properties with a name.
    func all(_ name: String) -> [ContentLine] { properties.filter { $0.name == name } }
}
