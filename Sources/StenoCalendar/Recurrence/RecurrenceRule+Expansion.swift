import Foundation

/// Bounds that keep expansion of any rule, however pathological, fast and finite.
public struct ExpansionLimits: Sendable, Hashable {
    /// The most occurrences one series may produce.
    public var maxOccurrences: Int
    /// The most periods (years, months, weeks, days, hours, …) a rule may step through.
    public var maxIterations: Int

    /// Creates limits.
    public init(maxOccurrences: Int = 100_000, maxIterations: Int = 2_000_000) {
        self.maxOccurrences = maxOccurrences
        self.maxIterations = maxIterations
    }

    /// 100,000 occurrences and 2,000,000 periods per series.
    public static let `default` = ExpansionLimits()
}

extension RecurrenceRule {
    /// Expands the rule into wall-clock start times, in increasing order.
    ///
    /// The algorithm follows RFC 5545 as implemented by python-dateutil (which
    /// recurring-ical-events builds on): each period (year, month, week, day, …) is filled with
    /// every day, filtered by the BYxxx parts, combined with the times of day, and reduced by
    /// `BYSETPOS`. Like dateutil, `DTSTART` itself is *not* added when it does not match the rule
    /// (``RecurrenceSet`` adds it, as RFC 5545 requires), and `COUNT` counts only generated values.
    ///
    /// - Parameters:
    ///   - start: `DTSTART` as wall-clock time; nothing earlier is produced.
    ///   - limit: expansion stops after this wall-clock time (the window end), even without
    ///     `COUNT`/`UNTIL`.
    ///   - isAfterUntil: whether a value lies beyond `UNTIL`; the caller decides because a UTC
    ///     `UNTIL` must be compared in the series' time zone.
    ///   - skipBefore: a hint that values before it are not needed. Rules without `COUNT` then
    ///     start at the period containing it instead of at `DTSTART` (periods are independent,
    ///     so the result from there on is the same); with `COUNT` every period must be counted.
    ///   - limits: caps on occurrences and iterations.
    public func expand(
        start: LocalDateTime,
        limit: LocalDateTime,
        isAfterUntil: (LocalDateTime) -> Bool = { _ in false },
        skipBefore: LocalDateTime? = nil,
        limits: ExpansionLimits = .default
    ) -> [LocalDateTime] {
        var plan = ExpansionPlan(rule: self, start: start)
        var out: [LocalDateTime] = []
        let maxCount = min(count ?? Int.max, limits.maxOccurrences)
        guard maxCount > 0 else { return out }
        var iterations = 0

        /// Appends one candidate; returns false when expansion must stop.
        func emit(_ value: LocalDateTime) -> Bool {
            if value < start { return true }
            if value > limit || isAfterUntil(value) { return false }
            out.append(value)
            return out.count < maxCount
        }

        let skip = count == nil ? skipBefore.flatMap { $0 > start ? $0 : nil } : nil
        if frequency >= .hourly {
            expandSubDaily(plan: &plan, start: start, skip: skip, limit: limit, iterations: &iterations, limits: limits, emit: emit)
            return out
        }
        let startDay = start.dayNumber
        let startMonthIndex = start.year * 12 + (start.month - 1)
        let weekOffset = (start.weekday.rawValue - weekStart.rawValue).floorMod(7)
        var period = 0
        if let skip {
            switch frequency {
            case .yearly: period = (skip.year - start.year) / interval
            case .monthly: period = (skip.year * 12 + skip.month - 1 - startMonthIndex) / interval
            case .weekly: period = (skip.dayNumber - (startDay - weekOffset)) / (7 * interval)
            default: period = (skip.dayNumber - startDay) / interval
            }
            period = max(0, period)
        }
        while iterations < limits.maxIterations {
            defer { iterations += 1; period += 1 }
            let days: Range<Int>
            switch frequency {
            case .yearly:
                let year = start.year + period * interval
                days = LocalDateTime.days(year: year, month: 1, day: 1)..<LocalDateTime.days(year: year + 1, month: 1, day: 1)
            case .monthly:
                let index = startMonthIndex + period * interval
                let (y, m) = (index.floorDiv(12), index.floorMod(12) + 1)
                let first = LocalDateTime.days(year: y, month: m, day: 1)
                days = first..<(first + LocalDateTime.daysInMonth(year: y, month: m))
            case .weekly:
                // Like dateutil, the first week only holds the days from DTSTART on, which
                // matters for BYSETPOS ("the 2nd matching day" counts from DTSTART's day).
                let first = startDay - weekOffset + period * interval * 7
                days = (period == 0 ? startDay : first)..<(first + 7)
            default:
                let day = startDay + period * interval
                days = day..<(day + 1)
            }
            guard let firstDay = days.first, firstDay <= limit.dayNumber, firstDay < 3_000_000 else { break }
            let matching = plan.candidateDays(in: days, frequency: frequency).filter { plan.matches(day: $0) }
            guard !matching.isEmpty else { continue }
            var candidates: [LocalDateTime] = []
            candidates.reserveCapacity(matching.count * plan.times.count)
            for day in matching {
                let (y, m, d) = LocalDateTime.civil(fromDays: day)
                for t in plan.times {
                    candidates.append(LocalDateTime(year: y, month: m, day: d, hour: t.h, minute: t.m, second: t.s))
                }
            }
            for value in applySetPos(candidates) where !emit(value) { return out }
        }
        return out
    }

    /// HOURLY, MINUTELY and SECONDLY: periods are hours/minutes/seconds stepped from `DTSTART`.
    private func expandSubDaily(
        plan: inout ExpansionPlan, start: LocalDateTime, skip: LocalDateTime?, limit: LocalDateTime,
        iterations: inout Int, limits: ExpansionLimits, emit: (LocalDateTime) -> Bool
    ) {
        let unit: Int64 = frequency == .hourly ? 3600 : (frequency == .minutely ? 60 : 1)
        let step = unit * Int64(interval)
        // The period containing DTSTART, truncated to the unit.
        let base = start.secondsSinceEpoch - start.secondsSinceEpoch.floorMod(unit)
        var periodStart = base
        if let skip {
            periodStart += max(0, (skip.secondsSinceEpoch - base) / step) * step
        }
        let end = limit.secondsSinceEpoch
        while iterations < limits.maxIterations, periodStart <= end {
            iterations += 1
            let wall = LocalDateTime(secondsSinceEpoch: periodStart)
            if !plan.matches(day: wall.dayNumber) {
                // Skip the rest of the day in one jump: no period in it can match.
                let nextDay = (periodStart.floorDiv(86_400) + 1) * 86_400
                periodStart += max(1, (nextDay - periodStart + step - 1) / step) * step
                continue
            }
            var candidates: [LocalDateTime] = []
            if byHour.isEmpty || byHour.contains(wall.hour) {
                switch frequency {
                case .hourly:
                    for m in plan.minutes { for s in plan.seconds { candidates.append(LocalDateTime(year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: m, second: s)) } }
                case .minutely:
                    if byMinute.isEmpty || byMinute.contains(wall.minute) {
                        for s in plan.seconds { candidates.append(LocalDateTime(year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute, second: s)) }
                    }
                default:
                    if (byMinute.isEmpty || byMinute.contains(wall.minute)) && (bySecond.isEmpty || bySecond.contains(wall.second)) {
                        candidates.append(wall)
                    }
                }
            }
            for value in applySetPos(candidates.sorted()) where !emit(value) { return }
            periodStart += step
        }
    }

    /// Keeps the `BYSETPOS` positions of one period's sorted candidates.
    private func applySetPos(_ candidates: [LocalDateTime]) -> [LocalDateTime] {
        guard !bySetPos.isEmpty, !candidates.isEmpty else { return candidates }
        var picked = Set<LocalDateTime>()
        for pos in bySetPos {
            let index = pos > 0 ? pos - 1 : candidates.count + pos
            if candidates.indices.contains(index) { picked.insert(candidates[index]) }
        }
        return picked.sorted()
    }
}

/// The rule with dateutil's defaults filled in, ready to test days quickly.
struct ExpansionPlan {
    let rule: RecurrenceRule
    var byMonth: Set<Int>
    var byMonthDayPositive: Set<Int>
    var byMonthDayNegative: Set<Int>
    var plainDays: Set<Weekday>
    var nthDays: [RecurrenceRule.WeekdayNum]
    var times: [(h: Int, m: Int, s: Int)]
    var minutes: [Int]
    var seconds: [Int]
    /// Week-number start days per year, cached because BYWEEKNO asks for them per day.
    private var weekOneStart: [Int: Int] = [:]

    init(rule: RecurrenceRule, start: LocalDateTime) {
        self.rule = rule
        var byMonth = rule.byMonth
        var byMonthDay = rule.byMonthDay
        var byDay = rule.byDay
        // dateutil/RFC defaults: a rule without day parts repeats DTSTART's day.
        if rule.byWeekNo.isEmpty && rule.byYearDay.isEmpty && rule.byMonthDay.isEmpty && rule.byDay.isEmpty {
            switch rule.frequency {
            case .yearly:
                if byMonth.isEmpty { byMonth = [start.month] }
                byMonthDay = [start.day]
            case .monthly: byMonthDay = [start.day]
            case .weekly: byDay = [.init(start.weekday)]
            default: break
            }
        }
        self.byMonth = Set(byMonth)
        byMonthDayPositive = Set(byMonthDay.filter { $0 > 0 })
        byMonthDayNegative = Set(byMonthDay.filter { $0 < 0 })
        // Ordinals only mean something in MONTHLY and YEARLY rules; elsewhere they are plain days.
        let useOrdinals = rule.frequency <= .monthly
        plainDays = Set(byDay.filter { $0.ordinal == nil || !useOrdinals }.map(\.weekday))
        nthDays = useOrdinals ? byDay.filter { $0.ordinal != nil } : []
        let hours = rule.byHour.isEmpty ? (rule.frequency < .hourly ? [start.hour] : []) : rule.byHour.sorted()
        minutes = rule.byMinute.isEmpty ? [start.minute] : Array(Set(rule.byMinute)).sorted()
        seconds = rule.bySecond.isEmpty ? [start.second] : Array(Set(rule.bySecond)).sorted()
        var times: [(h: Int, m: Int, s: Int)] = []
        for h in Set(hours).sorted() { for m in minutes { for s in seconds { times.append((h, m, s)) } } }
        self.times = times
    }

    /// The days of a period worth testing: for YEARLY rules with BYMONTH only those months,
    /// which keeps long-running yearly rules (VTIMEZONE observances from 1601) cheap.
    func candidateDays(in days: Range<Int>, frequency: RecurrenceRule.Frequency) -> [Int] {
        guard frequency == .yearly, !byMonth.isEmpty, let first = days.first else { return Array(days) }
        let year = LocalDateTime.civil(fromDays: first).year
        var result: [Int] = []
        for month in byMonth.sorted() {
            let start = LocalDateTime.days(year: year, month: month, day: 1)
            result += start..<(start + LocalDateTime.daysInMonth(year: year, month: month))
        }
        return result
    }

    /// Whether a day (days since 1970-01-01) passes every BYxxx day filter.
    mutating func matches(day: Int) -> Bool {
        let (y, m, d) = LocalDateTime.civil(fromDays: day)
        if !byMonth.isEmpty && !byMonth.contains(m) { return false }
        let weekday = Weekday(rawValue: (day + 3).floorMod(7)) ?? .monday
        if !rule.byWeekNo.isEmpty && !matchesWeekNo(day: day, year: y) { return false }
        if !plainDays.isEmpty && !plainDays.contains(weekday) { return false }
        if !nthDays.isEmpty {
            // The ordinal counts within the month (MONTHLY, or YEARLY with BYMONTH) or the year.
            let inMonth = rule.frequency == .monthly || !rule.byMonth.isEmpty
            let (index, length) = inMonth
                ? (d, LocalDateTime.daysInMonth(year: y, month: m))
                : (day - LocalDateTime.days(year: y, month: 1, day: 1) + 1, LocalDateTime.daysInYear(y))
            let fromStart = (index - 1) / 7 + 1
            let fromEnd = -((length - index) / 7 + 1)
            if !nthDays.contains(where: { $0.weekday == weekday && ($0.ordinal == fromStart || $0.ordinal == fromEnd) }) {
                return false
            }
        }
        if !byMonthDayPositive.isEmpty || !byMonthDayNegative.isEmpty {
            let negative = d - LocalDateTime.daysInMonth(year: y, month: m) - 1
            if !byMonthDayPositive.contains(d) && !byMonthDayNegative.contains(negative) { return false }
        }
        if !rule.byYearDay.isEmpty {
            let yday = day - LocalDateTime.days(year: y, month: 1, day: 1) + 1
            let negative = yday - LocalDateTime.daysInYear(y) - 1
            if !rule.byYearDay.contains(yday) && !rule.byYearDay.contains(negative) { return false }
        }
        return true
    }

    /// Week numbers per RFC 5545: week 1 is the first `WKST`-based week with at least four
    /// days in the year, i.e. the week containing January 4.
    private mutating func matchesWeekNo(day: Int, year: Int) -> Bool {
        var weekYear = year
        if day < weekStart(of: year) { weekYear = year - 1 } else if day >= weekStart(of: year + 1) { weekYear = year + 1 }
        let first = weekStart(of: weekYear)
        let number = (day - first) / 7 + 1
        let total = (weekStart(of: weekYear + 1) - first) / 7
        return rule.byWeekNo.contains(number) || rule.byWeekNo.contains(number - total - 1)
    }

    private mutating func weekStart(of year: Int) -> Int {
        if let cached = weekOneStart[year] { return cached }
        let jan4 = LocalDateTime.days(year: year, month: 1, day: 4)
        let weekday = (jan4 + 3).floorMod(7)
        let value = jan4 - (weekday - rule.weekStart.rawValue).floorMod(7)
        weekOneStart[year] = value
        return value
    }
}
