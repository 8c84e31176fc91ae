import Foundation

extension CronSchedule {
    /// The first instant strictly after `date` at which the schedule fires, or nil when it
    /// never does within 28 years (e.g. `0 0 30 FEB *`).
    ///
    /// The fields are wall-clock times in `timeZone`, and each matching wall-clock minute fires
    /// once:
    /// - in a spring-forward gap (a local time that does not exist), the job fires at the first
    ///   valid minute after the gap, once however many of its minutes fell into the gap;
    /// - in a fall-back overlap (a local time that happens twice), it fires at the first
    ///   occurrence only, so a daily job never runs twice in one night.
    public func nextFireDate(after date: Date, in timeZone: TimeZone) -> Date? {
        let afterSeconds = Int64(floor(date.timeIntervalSince1970))
        let localSeconds = afterSeconds + Int64(timeZone.secondsFromGMT(for: date))
        // Start at the next local minute; times before it fired already (or lie in the past).
        let startMinute = Self.floorDivide(localSeconds, 60) + 1
        var day = Self.floorDivide(startMinute, 1440)
        var firstMinuteOfDay = Int(startMinute - day * 1440)
        let lastDay = day + 366 * 28 + 1
        while day <= lastDay {
            let (year, month, dayOfMonth) = Self.civil(fromDays: day)
            if !months.contains(month) {
                // Jump to the first day of the next month.
                let (nextYear, nextMonth) = month == 12 ? (year + 1, 1) : (year, month + 1)
                day = Self.days(year: nextYear, month: nextMonth, day: 1)
                firstMinuteOfDay = 0
                continue
            }
            let weekday = Int(Self.floorModulo(day + 4, 7))  // 1970-01-01 was a Thursday.
            if matchesDay(day: dayOfMonth, month: month, weekday: weekday) {
                for hour in hours {
                    for minute in minutes where hour * 60 + minute >= firstMinuteOfDay {
                        let local = (day * 1440 + Int64(hour * 60 + minute)) * 60
                        let instant = Self.instant(forLocalSeconds: local, in: timeZone)
                        if instant > afterSeconds { return Date(timeIntervalSince1970: TimeInterval(instant)) }
                    }
                }
            }
            day += 1
            firstMinuteOfDay = 0
        }
        return nil
    }

    /// The earliest instant whose wall-clock time in `timeZone` is `local` (seconds since 1970
    /// read as if UTC); for a time in a gap, the instant the gap ends.
    static func instant(forLocalSeconds local: Int64, in timeZone: TimeZone) -> Int64 {
        func offset(_ instant: Int64) -> Int64 {
            Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
        }
        // Offsets in force around that time; transitions are far more than a day apart.
        let offsets = Set([offset(local - 86_400), offset(local), offset(local + 86_400)])
        let valid = offsets.map { local - $0 }.filter { offset($0) == local - $0 }
        if let earliest = valid.min() { return earliest }
        // A gap: the offset jumps from `before` to `after` (> before). The wall time lies
        // between the last instant on the old offset and the first on the new: search for it.
        var low = local - (offsets.max() ?? 0)  // still on the old offset
        var high = local - (offsets.min() ?? 0)  // already on the new offset
        let oldOffset = offset(low)
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if offset(middle) == oldOffset { low = middle } else { high = middle }
        }
        // The first whole minute on the new offset, in its wall-clock time.
        let newOffset = offset(high)
        let localAtTransition = high + newOffset
        let roundedUp = floorDivide(localAtTransition + 59, 60) * 60
        return roundedUp - newOffset
    }

    // MARK: - Civil-date arithmetic (proleptic Gregorian), free of Calendar's time-zone rules

    /// Days since 1970-01-01 of a date (Howard Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        CivilDays.from(year: year, month: month, day: day)
    }

    /// The date of a day number.
    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        CivilDays.civil(days)
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }
}
