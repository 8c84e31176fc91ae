import Foundation

extension DeviceEvent {
    /// An event from its instants, as EventKit gives them, with the wire's local fields filled in.
    ///
    /// - Timed: `date` and `startTime` are the start's day and time in `timeZone`, `endTime` the
    ///   end's time, and `endDate` the end's day when it is another day (an event ending at
    ///   midnight ends on the next day at `00:00`).
    /// - All-day: no times; `endDate` is the last day, inclusive, when the event spans several.
    ///   EventKit ends an all-day event at 23:59:59 of its last day, other sources at midnight
    ///   after it: both give the same last day.
    ///
    /// Seconds are dropped (the wire carries minutes).
    public init(
        externalId: String, externalCalendarId: String?, start: Date, end: Date, isAllDay: Bool, timeZone: TimeZone,
        occurrenceDate: Date? = nil, calendarTitle: String? = nil, externalUpdatedAt: Date? = nil, title: String? = nil,
        status: EventStatus? = nil, location: String? = nil, url: String? = nil, organizer: EventParticipant? = nil,
        attendees: [EventAttendee]? = nil, calendarItemExternalIdentifier: String? = nil
    ) {
        self.init(
            externalId: externalId, occurrenceDate: occurrenceDate.map(EpochMilliseconds.from), externalCalendarId: externalCalendarId,
            calendarTitle: calendarTitle, externalUpdatedAt: externalUpdatedAt.map(EpochMilliseconds.from), title: title,
            timeZone: timeZone.identifier, status: status, location: location, url: url, organizer: organizer, attendees: attendees,
            calendarItemExternalIdentifier: calendarItemExternalIdentifier)
        setTimes(start: start, end: end, isAllDay: isAllDay, timeZone: timeZone)
    }

    /// Replaces `date`, `startTime`, `endTime`, `endDate` and `timeZone` with the local fields
    /// of these instants (see ``init(externalId:externalCalendarId:start:end:isAllDay:timeZone:occurrenceDate:calendarTitle:externalUpdatedAt:title:status:location:url:organizer:attendees:calendarItemExternalIdentifier:)``).
    public mutating func setTimes(start: Date, end: Date, isAllDay: Bool, timeZone: TimeZone) {
        let clock = WallClock(timeZone: timeZone)
        self.timeZone = timeZone.identifier
        let firstDay = clock.day(of: start)
        date = firstDay
        if isAllDay {
            startTime = nil
            endTime = nil
            // The last day is the one holding the end's last second: exclusive midnight and
            // EventKit's 23:59:59 both land on it.
            let lastDay = end > start ? clock.day(of: end.addingTimeInterval(-1)) : firstDay
            endDate = lastDay == firstDay ? nil : lastDay
        } else {
            startTime = clock.time(of: start)
            let finish = max(start, end)
            endTime = clock.time(of: finish)
            let lastDay = clock.day(of: finish)
            endDate = lastDay == firstDay ? nil : lastDay
        }
    }

    /// The event's start and end instants from its local fields, `timeZone` (else
    /// `defaultTimeZone`) deciding the offset; nil when `date` or a time does not parse. An
    /// all-day event runs from midnight of `date` to midnight after its last day.
    ///
    /// On the day clocks go back, a local time that happens twice is read as its first instance.
    public func interval(defaultTimeZone: TimeZone = .current) -> DateInterval? {
        let zone = timeZone.flatMap(TimeZone.init(identifier:)) ?? defaultTimeZone
        return WallClock(timeZone: zone).interval(date: date, startTime: startTime, endTime: endTime, endDate: endDate)
    }
}

/// Epoch milliseconds, the wire's instants.
public enum EpochMilliseconds {
    /// `date` in whole milliseconds since 1970 (rounded down).
    public static func from(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The instant of `milliseconds` since 1970.
    public static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// Local days (`YYYY-MM-DD`) and times (`HH:mm`) in one zone, with the Gregorian calendar
/// whatever the device's settings.
struct WallClock {
    let calendar: Calendar

    init(timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.locale = Locale(identifier: "en_US_POSIX")
        self.calendar = calendar
    }

    func day(of instant: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return Self.format(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0)
    }

    func time(of instant: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return Self.pad(parts.hour ?? 0) + ":" + Self.pad(parts.minute ?? 0)
    }

    /// The instants of a wire event's local fields; nil when one does not parse.
    func interval(date: String?, startTime: String?, endTime: String?, endDate: String?) -> DateInterval? {
        guard let first = date.flatMap(Self.parseDay) else { return nil }
        let last = endDate.flatMap(Self.parseDay) ?? first
        if startTime == nil && endTime == nil {
            guard let start = instant(first, hour: 0, minute: 0), let lastMidnight = instant(last, hour: 0, minute: 0),
                let end = calendar.date(byAdding: .day, value: 1, to: lastMidnight)
            else { return nil }
            return DateInterval(start: start, end: max(start, end))
        }
        guard let startParts = startTime.flatMap(Self.parseTime), let endParts = endTime.flatMap(Self.parseTime),
            let start = instant(first, hour: startParts.hour, minute: startParts.minute),
            let end = instant(last, hour: endParts.hour, minute: endParts.minute)
        else { return nil }
        return DateInterval(start: start, end: max(start, end))
    }

    private func instant(_ day: (year: Int, month: Int, day: Int), hour: Int, minute: Int) -> Date? {
        let parts = DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute)
        return calendar.date(from: parts)
    }

    static func parseDay(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return (year, month, day)
    }

    static func parseTime(_ text: String) -> (hour: Int, minute: Int)? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[0].count == 2, fields[1].count == 2, let hour = Int(fields[0]), let minute = Int(fields[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return (hour, minute)
    }

    static func format(year: Int, month: Int, day: Int) -> String {
        let paddedYear = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return paddedYear + "-" + pad(month) + "-" + pad(day)
    }

    static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
