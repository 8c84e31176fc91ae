import Foundation

/// One `RDATE` or `EXDATE` value.
public struct RecurrenceDate: Sendable, Hashable {
    /// How the value's wall-clock time is anchored.
    public enum Kind: Sendable, Hashable {
        /// A DATE value (the wall-clock time is midnight).
        case date
        /// A floating DATE-TIME, read in the series' time zone.
        case floating
        /// A DATE-TIME in a specific zone (UTC is `.fixed(0)`).
        case zoned(TimeZoneRules)
    }

    /// The wall-clock value as written.
    public var value: LocalDateTime
    /// How to anchor it.
    public var kind: Kind
    /// For `VALUE=PERIOD`, the occurrence's length in wall-clock seconds.
    public var periodDuration: Int64?

    /// Creates a value.
    public init(value: LocalDateTime, kind: Kind, periodDuration: Int64? = nil) {
        self.value = value
        self.kind = kind
        self.periodDuration = periodDuration
    }
}

/// A recurring series' start times: `DTSTART` + `RRULE`s + `RDATE`s − `EXDATE`s (RFC 5545 §3.8.5).
///
/// Semantics follow recurring-ical-events, so expansions match it:
/// - `DTSTART` is always an occurrence unless it lies after the last `UNTIL`.
/// - `UNTIL` is compared as written for date and floating series; for zoned series every form
///   is read as UTC (a DATE `UNTIL` is midnight UTC), as recurring-ical-events repairs it.
/// - A DATE `EXDATE` removes every occurrence on that local date; a DATE-TIME `EXDATE` removes
///   the occurrence at the same instant.
/// - Starts are unique by instant: two wall-clock values that resolve to the same instant (one in
///   a spring-forward gap) are one occurrence, where recurring-ical-events would return both.
public struct RecurrenceSet: Sendable, Hashable {
    /// How `DTSTART` is anchored.
    public enum StartKind: Sendable, Hashable {
        /// All-day (DATE) series.
        case date
        /// Floating DATE-TIME, interpreted in ``RecurrenceSet/zone``.
        case floating
        /// DATE-TIME with a zone (incl. UTC).
        case zoned
    }

    /// One expanded start.
    public struct Start: Sendable, Hashable {
        /// The start instant.
        public var instant: Date
        /// The wall-clock start in ``zone``.
        public var local: LocalDateTime
        /// The zone that wall-clock durations are added in.
        public var zone: TimeZoneRules
        /// The occurrence length from an RDATE `PERIOD`, if any.
        public var periodDuration: Int64?
    }

    /// `DTSTART` in wall-clock time of ``zone``.
    public var start: LocalDateTime
    /// How `DTSTART` was written.
    public var startKind: StartKind
    /// The series' zone (for floating and DATE series, the calendar's default zone).
    public var zone: TimeZoneRules
    /// `RRULE`s.
    public var rules: [RecurrenceRule]
    /// `RDATE`s.
    public var rdates: [RecurrenceDate]
    /// `EXDATE`s.
    public var exdates: [RecurrenceDate]

    /// Creates a set.
    public init(start: LocalDateTime, startKind: StartKind, zone: TimeZoneRules,
                rules: [RecurrenceRule] = [], rdates: [RecurrenceDate] = [], exdates: [RecurrenceDate] = []) {
        self.start = start
        self.startKind = startKind
        self.zone = zone
        self.rules = rules
        self.rdates = rdates
        self.exdates = exdates
    }

    /// Every start at or before `upper`, sorted by instant, with exclusions applied.
    ///
    /// Expansion is bounded by `upper` and by `limits`, so rules without `COUNT`/`UNTIL` end.
    /// `lower` is a hint: starts before it may be left out (rules without `COUNT` skip ahead).
    public func starts(from lower: Date? = nil, through upper: Date, limits: ExpansionLimits = .default) -> [Start] {
        // A day of margin: the wall-clock limit only has to be beyond `upper` in any offset.
        let wallLimit = zone.localDateTime(for: upper).adding(days: 1)
        let skipBefore = lower.map { zone.localDateTime(for: $0).adding(days: -1) }
        var byInstant: [Int64: Start] = [:]
        func add(_ local: LocalDateTime, zone: TimeZoneRules, period: Int64? = nil) {
            let seconds = zone.utcSeconds(for: local)
            guard byInstant[seconds] == nil || period != nil else { return }
            byInstant[seconds] = Start(instant: Date(timeIntervalSince1970: TimeInterval(seconds)), local: local, zone: zone, periodDuration: period)
        }
        var lastUntil: LocalDateTime?
        for rule in rules {
            let isAfter = untilCheck(rule.until)
            if let until = rule.until {
                let bound = untilBound(until)
                if lastUntil.map({ bound > $0 }) ?? true { lastUntil = bound }
            }
            for local in rule.expand(start: start, limit: wallLimit, isAfterUntil: isAfter, skipBefore: skipBefore, limits: limits) {
                // A DATE series with BYHOUR/HOURLY parts: keep the dates (as recurring-ical-events
                // does), once each, so no two occurrences share an identity.
                add(startKind == .date ? local.startOfDay : local, zone: zone)
            }
        }
        if lastUntil.map({ !untilAfter(start, bound: $0) }) ?? true {
            add(start, zone: zone)
        }
        for rdate in rdates {
            switch rdate.kind {
            case .date, .floating: add(rdate.value, zone: zone, period: rdate.periodDuration)
            case .zoned(let z): add(rdate.value, zone: z, period: rdate.periodDuration)
            }
        }
        var excludedInstants = Set<Int64>()
        var excludedDates = Set<Int>()
        for exdate in exdates {
            switch exdate.kind {
            case .date: excludedDates.insert(exdate.value.dayNumber)
            case .floating: excludedInstants.insert(zone.utcSeconds(for: exdate.value))
            case .zoned(let z): excludedInstants.insert(z.utcSeconds(for: exdate.value))
            }
        }
        let upperSeconds = Int64(upper.timeIntervalSince1970.rounded(.up))
        return byInstant
            .filter { key, value in
                key <= upperSeconds && !excludedInstants.contains(key)
                    && !excludedDates.contains(value.local.dayNumber)
            }
            .map(\.value)
            .sorted { $0.instant < $1.instant }
    }

    /// The instant a value written in this series refers to (floating and DATE values read in ``zone``).
    public func instant(of value: RecurrenceDate) -> Date {
        switch value.kind {
        case .date, .floating: return zone.instant(for: value.value)
        case .zoned(let z): return z.instant(for: value.value)
        }
    }

    // MARK: UNTIL, as recurring-ical-events interprets it

    /// `UNTIL` as a wall-clock bound in the interpretation of ``startKind``: for zoned series the
    /// returned value is UTC wall-clock time.
    private func untilBound(_ until: RecurrenceRule.Until) -> LocalDateTime {
        switch (startKind, until) {
        case (.date, .utc(let v)): return v.startOfDay  // truncated to its date
        default: return until.value
        }
    }

    private func untilAfter(_ local: LocalDateTime, bound: LocalDateTime) -> Bool {
        switch startKind {
        case .date, .floating: return local > bound
        case .zoned: return zone.utcSeconds(for: local) > bound.secondsSinceEpoch
        }
    }

    private func untilCheck(_ until: RecurrenceRule.Until?) -> (LocalDateTime) -> Bool {
        guard let until else { return { _ in false } }
        let bound = untilBound(until)
        let kind = startKind
        let zone = zone
        switch kind {
        case .date, .floating: return { $0 > bound }
        case .zoned:
            let limit = bound.secondsSinceEpoch
            return { zone.utcSeconds(for: $0) > limit }
        }
    }
}
