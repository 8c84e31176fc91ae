import Foundation

/// A calendar collection as the calendar home lists it.
public struct CalDAVCollection: Sendable, Hashable {
    /// The collection's href (canonical path with a trailing slash: the calendar's remote id).
    public var href: DAVHref
    public var displayName: String?
    /// `#RRGGBB` (Apple's `calendar-color`, alpha dropped).
    public var color: String?
    /// Calendar Server `getctag`: changes whenever anything in the collection changes.
    public var ctag: String?
    /// Component names the collection accepts (`VEVENT`, `VTODO`…); nil when not announced.
    public var components: Set<String>?
    /// Local names of the REPORTs the collection announced; nil when not asked or not announced.
    public var reports: Set<String>?
    /// The TZID of `calendar-timezone`, when it has one.
    public var timeZoneID: String?

    public init(href: DAVHref) {
        self.href = href
    }

    /// Whether the collection can hold events (an undeclared set means any component).
    public var holdsEvents: Bool { components.map { $0.contains("VEVENT") } ?? true }

    /// A name for tables.
    public var name: String { displayName ?? href.lastSegment }

    /// Reads a calendar collection from a PROPFIND response; nil when it is not a calendar.
    init?(_ response: DAVResponse) {
        guard let types = response.property(.resourceType), types.child(.calendar) != nil else { return nil }
        self.init(href: response.href.asCollection)
        displayName = response.text(.displayName)
        color = response.text(.calendarColor).map(Self.normalizedColor)
        ctag = response.text(.getCTag)
        if let set = response.property(.supportedComponents) {
            components = Set(set.children(.comp).compactMap { $0.attributes["name"]?.uppercased() })
        }
        if let set = response.property(.supportedReportSet) {
            var names = Set<String>()
            for supported in set.children where supported.name.local == "supported-report" {
                for report in supported.children where report.name.local == "report" {
                    names.formUnion(report.children.map(\.name.local))
                }
            }
            reports = names
        }
        if let zone = response.text(.calendarTimeZone), let calendar = try? ICalendar.parse(zone) {
            timeZoneID = calendar.timeZones.keys.sorted().first
        }
    }

    /// `#RRGGBBAA` → `#RRGGBB`; other spellings are kept as sent.
    static func normalizedColor(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("#"), trimmed.count == 9, trimmed.dropFirst().allSatisfy(\.isHexDigit) {
            return String(trimmed.prefix(7)).uppercased()
        }
        return trimmed.hasPrefix("#") ? trimmed.uppercased() : trimmed
    }
}
