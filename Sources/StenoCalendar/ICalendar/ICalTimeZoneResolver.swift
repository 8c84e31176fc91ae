import Foundation
import StenoCore

/// Resolves TZIDs of one calendar to ``TimeZoneRules``.
///
/// Order, as icalendar (and so recurring-ical-events) resolves them:
/// 1. an IANA name known to the system (quotes and a leading `/` removed);
/// 2. the calendar's own `VTIMEZONE` with that TZID (custom zones, Outlook's definitions);
/// 3. a Windows name through the CLDR table ("W. Europe Standard Time" → Europe/Berlin);
/// 4. a "globally unique" TZID whose tail is an IANA name (`/mozilla.org/20050126_1/Europe/Berlin`);
/// 5. otherwise the calendar zone (`X-WR-TIMEZONE`) or the default zone, as for floating times.
struct ICalTimeZoneResolver {
    /// A resolved zone and the IANA name reported to consumers (or the TZID when it has none).
    struct Resolved {
        var rules: TimeZoneRules
        var reportedID: String?
    }

    let timeZones: [String: VTimeZone]
    /// The zone for DATE values and (without `X-WR-TIMEZONE`) floating times.
    let defaultZone: TimeZoneRules
    /// `X-WR-TIMEZONE`, which applies to floating and UTC times of the calendar.
    let calendarZone: Resolved?
    private var cache: [String: Resolved] = [:]

    init(calendar: ICalendar, defaultTimeZone: TimeZone) {
        timeZones = calendar.timeZones
        defaultZone = Self.rules(for: defaultTimeZone)
        calendarZone = calendar.calendarTimeZoneID.flatMap { id in
            if let zone = TimeZoneRules.iana(id) { return Resolved(rules: zone, reportedID: Self.reportedIdentifier(zone, fallback: id)) }
            if let iana = WindowsTimeZones.ianaIdentifier(forWindowsName: id), let zone = TimeZoneRules.iana(iana) {
                return Resolved(rules: zone, reportedID: iana)
            }
            return nil
        }
    }

    /// Rules for a Foundation zone (UTC/GMT become the fixed UTC rules).
    static func rules(for zone: TimeZone) -> TimeZoneRules {
        TimeZoneRules.iana(zone.identifier) ?? .foundation(zone)
    }

    private static func reportedIdentifier(_ zone: TimeZoneRules, fallback: String) -> String {
        if case .fixed(0) = zone { return "UTC" }
        return zone.identifier
    }

    /// Resolves a TZID (cached per resolver).
    mutating func resolve(_ tzid: String) -> Resolved {
        if let hit = cache[tzid] { return hit }
        let result = uncachedResolve(tzid)
        cache[tzid] = result
        return result
    }

    private func uncachedResolve(_ tzid: String) -> Resolved {
        let clean = ICalDateValue.cleanTZID(tzid)
        let stripped = clean.hasPrefix("/") ? String(clean.drop { $0 == "/" }) : clean
        if let zone = TimeZoneRules.iana(stripped) {
            return Resolved(rules: zone, reportedID: Self.reportedIdentifier(zone, fallback: stripped))
        }
        let windows = WindowsTimeZones.ianaIdentifier(forWindowsName: stripped)
        if let custom = timeZones[clean] ?? timeZones[tzid] ?? timeZones[stripped] {
            return Resolved(rules: custom.rules, reportedID: windows ?? stripped)
        }
        if let windows, let zone = TimeZoneRules.iana(windows) {
            return Resolved(rules: zone, reportedID: windows)
        }
        let parts = stripped.split(separator: "/")
        for count in [3, 2] where parts.count > count {
            let tail = parts.suffix(count).joined(separator: "/")
            if let zone = TimeZoneRules.iana(tail) { return Resolved(rules: zone, reportedID: tail) }
        }
        return Resolved(rules: calendarZone?.rules ?? defaultZone, reportedID: stripped)
    }

    /// Anchors a value: its wall-clock time, the zone it is read in, and the reported zone id.
    mutating func anchor(_ value: ICalDateValue) -> (local: LocalDateTime, zone: TimeZoneRules, reportedID: String?) {
        switch value {
        case .date(let v):
            return (v, defaultZone, nil)
        case .floating(let v):
            return (v, calendarZone?.rules ?? defaultZone, calendarZone?.reportedID)
        case .utc(let v):
            // Google exports UTC times with X-WR-TIMEZONE; series repeat in that zone's wall clock.
            if let calendarZone {
                return (calendarZone.rules.localDateTime(for: v.asUTCInstant), calendarZone.rules, calendarZone.reportedID)
            }
            return (v, .utc, "UTC")
        case .zoned(let v, let tzid):
            let resolved = resolve(tzid)
            return (v, resolved.rules, resolved.reportedID)
        }
    }

    /// The instant of a value.
    mutating func instant(_ value: ICalDateValue) -> Date {
        let a = anchor(value)
        return a.zone.instant(for: a.local)
    }
}
