import Foundation
import StenoCore

extension ICalendar {
    /// Expands every event into its occurrences overlapping `window`, sorted by start.
    ///
    /// - Events are grouped by `UID`: the master (highest `SEQUENCE`) is expanded with its
    ///   `RRULE`s, `RDATE`s and `EXDATE`s; each `RECURRENCE-ID` override replaces the occurrence
    ///   it names, wherever either of them lies (moved into or out of the window); an `EXDATE`
    ///   naming a `RECURRENCE-ID` removes the override too. `RANGE=THISANDFUTURE` overrides move
    ///   and reshape every later occurrence; each keeps its own original start as identity.
    /// - An occurrence is in the window when it overlaps it (`start < window.end && end >
    ///   window.start`); a zero-length one when `window.start <= start < window.end`.
    /// - Overrides with `STATUS:CANCELLED` are returned with status `.cancelled`.
    /// - Floating times use `X-WR-TIMEZONE` if present, else `defaultTimeZone`; DATE values start
    ///   at midnight in `defaultTimeZone`.
    /// - Expansion is bounded by the window end and ``ExpansionLimits/default``.
    public func occurrences(in window: DateInterval, defaultTimeZone: TimeZone) -> [ICalOccurrence] {
        occurrences(in: window, defaultTimeZone: defaultTimeZone, limits: .default)
    }

    /// ``occurrences(in:defaultTimeZone:)`` with explicit expansion limits.
    public func occurrences(in window: DateInterval, defaultTimeZone: TimeZone, limits: ExpansionLimits) -> [ICalOccurrence] {
        var resolver = ICalTimeZoneResolver(calendar: self, defaultTimeZone: defaultTimeZone)
        var groups: [String: [ICalEvent]] = [:]
        var order: [String] = []
        for (index, event) in events.enumerated() {
            // Events without UID cannot be related to each other: each is its own series.
            let key = event.uid.isEmpty ? "\u{0}#\(index)" : event.uid
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(event)
        }
        var result: [ICalOccurrence] = []
        for key in order {
            guard let group = groups[key] else { continue }
            result += Self.expandSeries(group, window: window, resolver: &resolver, limits: limits)
        }
        return result.sorted { ($0.start, $0.uid, $0.recurrenceID ?? $0.start) < ($1.start, $1.uid, $1.recurrenceID ?? $1.start) }
    }

    /// The mirrored window around `now`: `daysBack` days before to `daysAhead` days after
    /// (Steno's configuration defaults: 180 back, 365 ahead).
    public static func mirroredWindow(around now: Date, daysBack: Int = 180, daysAhead: Int = 365) -> DateInterval {
        DateInterval(start: now.addingTimeInterval(-Double(max(0, daysBack)) * 86_400),
                     end: now.addingTimeInterval(Double(max(0, daysAhead)) * 86_400))
    }

    /// Whether an occurrence overlaps the window (recurring-ical-events' rule).
    static func overlaps(start: Date, end: Date, window: DateInterval) -> Bool {
        if start == end { return window.start <= start && start < window.end }
        return start < window.end && window.start < end
    }

    private static func expandSeries(_ group: [ICalEvent], window: DateInterval,
                                      resolver: inout ICalTimeZoneResolver, limits: ExpansionLimits) -> [ICalOccurrence] {
        // Highest SEQUENCE wins among duplicates; the first one on a tie.
        var master: ICalEvent?
        var overrideComponents: [ICalEvent] = []
        for event in group {
            if event.recurrenceID == nil {
                if master.map({ event.sequence > $0.sequence }) ?? true { master = event }
            } else {
                overrideComponents.append(event)
            }
        }
        var result: [ICalOccurrence] = []
        var overrides: [Date: ICalEvent] = [:]
        var overrideOrder: [Date] = []
        var masterSet: RecurrenceSet?
        var masterAnchor: (local: LocalDateTime, zone: TimeZoneRules, reportedID: String?)?
        if let master {
            let anchor = resolver.anchor(master.start)
            masterAnchor = anchor
            let kind: RecurrenceSet.StartKind
            switch master.start {
            case .date: kind = .date
            case .floating: kind = resolver.calendarZone == nil ? .floating : .zoned
            case .utc, .zoned: kind = .zoned
            }
            masterSet = RecurrenceSet(
                start: anchor.local, startKind: kind, zone: anchor.zone, rules: master.rrules,
                rdates: master.rdates.map { recurrenceDate($0.start, period: $0, resolver: &resolver, seriesZone: anchor.zone) },
                exdates: master.exdates.map { recurrenceDate($0, period: nil, resolver: &resolver, seriesZone: anchor.zone) })
        }
        var thisAndFuture: [(rid: Date, event: ICalEvent, shift: Int64)] = []
        for event in overrideComponents {
            guard let rid = event.recurrenceID else { continue }
            let instant = recurrenceInstant(rid, set: masterSet, resolver: &resolver)
            if event.recurrenceIDThisAndFuture {
                // RFC 5545: later instances move by the same difference and take this duration.
                let s = resolver.anchor(event.start)
                let r = resolver.anchor(rid)
                let shift = s.zone == r.zone
                    ? s.local.secondsSinceEpoch - r.local.secondsSinceEpoch
                    : s.zone.utcSeconds(for: s.local) - r.zone.utcSeconds(for: r.local)
                thisAndFuture.append((instant, event, shift))
            }
            if let existing = overrides[instant] {
                if event.sequence > existing.sequence { overrides[instant] = event }
            } else {
                overrides[instant] = event
                overrideOrder.append(instant)
            }
        }
        if let master, let set = masterSet, let anchor = masterAnchor {
            let isSeries = master.isRecurring || !overrides.isEmpty
            let duration = durationSeconds(of: master, startLocal: anchor.local, startZone: anchor.zone, resolver: &resolver)
            // An EXDATE naming an override's RECURRENCE-ID cancels it too (a DATE one as local midnight).
            let excluded = Set(set.exdates.map { set.instant(of: $0) })
            thisAndFuture.sort { $0.rid < $1.rid }
            let maxShift = thisAndFuture.map { TimeInterval(abs($0.shift)) }.max() ?? 0
            // Starts earlier than this cannot overlap the window (a day of margin for offsets).
            let lower = thisAndFuture.isEmpty ? window.start.addingTimeInterval(-TimeInterval(duration) - 86_400) : nil
            for start in set.starts(from: lower, through: window.end.addingTimeInterval(maxShift), limits: limits)
            where overrides[start.instant] == nil {
                // The latest THISANDFUTURE override before this start, if any, supplies the fields.
                let range = thisAndFuture.last { $0.rid < start.instant }
                let source = range?.event ?? master
                let length = range.map { durationSeconds(of: $0.event, startLocal: resolver.anchor($0.event.start).local,
                                                         startZone: resolver.anchor($0.event.start).zone, resolver: &resolver) }
                    ?? start.periodDuration ?? duration
                let startLocal = start.local.adding(seconds: range?.shift ?? 0)
                let startInstant = range == nil ? start.instant : start.zone.instant(for: startLocal)
                let endLocal = startLocal.adding(seconds: length)
                let end = endInstant(endLocal, zone: start.zone, start: startInstant, length: length)
                guard overlaps(start: startInstant, end: end, window: window) else { continue }
                var occurrence = ICalOccurrence(event: source, recurrenceID: isSeries ? start.instant : nil,
                                                start: startInstant, end: end, isOverride: range != nil)
                occurrence.timeZoneID = anchor.reportedID
                if source.isAllDay {
                    occurrence.allDayStart = ICalDay(startLocal)
                    occurrence.allDayEnd = ICalDay(endLocal)
                }
                result.append(occurrence)
            }
            for instant in overrideOrder where excluded.contains(instant) { overrides[instant] = nil }
        }
        for instant in overrideOrder {
            guard let event = overrides[instant] else { continue }
            let anchor = resolver.anchor(event.start)
            let start = anchor.zone.instant(for: anchor.local)
            let length = durationSeconds(of: event, startLocal: anchor.local, startZone: anchor.zone, resolver: &resolver)
            let endLocal = anchor.local.adding(seconds: length)
            let end = endInstant(endLocal, zone: anchor.zone, start: start, length: length)
            guard overlaps(start: start, end: end, window: window) else { continue }
            var occurrence = ICalOccurrence(event: event, recurrenceID: instant, start: start, end: end, isOverride: true)
            occurrence.timeZoneID = anchor.reportedID
            if event.isAllDay {
                occurrence.allDayStart = ICalDay(anchor.local)
                occurrence.allDayEnd = ICalDay(endLocal)
            }
            result.append(occurrence)
        }
        return result
    }

    /// The end instant: the wall-clock end in the zone, like recurring-ical-events, except when
    /// that lies before the start (a start in a spring-forward gap moved forward, e.g. 02:30 →
    /// 03:30, while 02:30 + 45 min = 03:15 exists): Python then returns an end before the start;
    /// Steno keeps the length instead, as consumers rely on `end >= start`.
    private static func endInstant(_ endLocal: LocalDateTime, zone: TimeZoneRules, start: Date, length: Int64) -> Date {
        let end = zone.instant(for: endLocal)
        return end < start ? start.addingTimeInterval(TimeInterval(length)) : end
    }

    /// The instant a `RECURRENCE-ID` names: DATE and floating values are read in the series' zone.
    private static func recurrenceInstant(_ rid: ICalDateValue, set: RecurrenceSet?, resolver: inout ICalTimeZoneResolver) -> Date {
        if let set, case .date(let v) = rid { return set.zone.instant(for: v) }
        if let set, case .floating(let v) = rid { return set.zone.instant(for: v) }
        return resolver.instant(rid)
    }

    /// An RDATE/EXDATE value for a ``RecurrenceSet``.
    private static func recurrenceDate(_ value: ICalDateValue, period: ICalEvent.RDate?,
                                       resolver: inout ICalTimeZoneResolver, seriesZone: TimeZoneRules) -> RecurrenceDate {
        var periodDuration: Int64?
        if let period {
            if let duration = period.duration {
                periodDuration = duration.totalSeconds
            } else if let end = period.end {
                let a = resolver.anchor(value)
                let b = resolver.anchor(end)
                periodDuration = a.zone == b.zone
                    ? b.local.secondsSinceEpoch - a.local.secondsSinceEpoch
                    : b.zone.utcSeconds(for: b.local) - a.zone.utcSeconds(for: a.local)
            }
            periodDuration = periodDuration.map { max(0, $0) }
        }
        switch value {
        case .date(let v): return RecurrenceDate(value: v, kind: .date, periodDuration: periodDuration)
        case .floating(let v): return RecurrenceDate(value: v, kind: .floating, periodDuration: periodDuration)
        case .utc, .zoned:
            let a = resolver.anchor(value)
            return RecurrenceDate(value: a.local, kind: a.zone == seriesZone ? .floating : .zoned(a.zone), periodDuration: periodDuration)
        }
    }

    /// An event's length in wall-clock seconds: `DTEND − DTSTART` (wall-clock when both are in
    /// the same zone, as Python computes it), else `DURATION`, else one day for DATE events and
    /// zero otherwise. Negative lengths are clamped to zero.
    private static func durationSeconds(of event: ICalEvent, startLocal: LocalDateTime, startZone: TimeZoneRules,
                                        resolver: inout ICalTimeZoneResolver) -> Int64 {
        let seconds: Int64
        if let end = event.end {
            let e = resolver.anchor(end)
            seconds = e.zone == startZone
                ? e.local.secondsSinceEpoch - startLocal.secondsSinceEpoch
                : e.zone.utcSeconds(for: e.local) - startZone.utcSeconds(for: startLocal)
        } else if let duration = event.duration {
            seconds = duration.totalSeconds
        } else {
            seconds = event.isAllDay ? 86_400 : 0
        }
        return max(0, seconds)
    }
}
