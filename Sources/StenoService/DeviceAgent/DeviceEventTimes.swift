import Foundation

/// The device protocol's local days and times, to and from instants.
///
/// A timed event is `date` + `startTime` to (`endDate` or `date`) + `endTime`, local to its
/// zone; an all-day event is the days `date` to `endDate` (the last day, inclusive). Local
/// times a daylight-saving change skips are taken as the time after the change, as calendars
/// show them.
enum DeviceEventTimes {
    /// An event's span as the mirror keeps it.
    struct Span: Hashable {
        var start: Date
        var end: Date
        /// For all-day events: the first day and the day after the last (`YYYY-MM-DD`).
        var allDayStart: String?
        var allDayEnd: String?
    }

    /// An event's days and times as the device protocol writes them.
    struct Local: Hashable {
        var date: String
        var startTime: String?
        var endTime: String?
        /// Only when it differs from `date` (timed: the end's day; all-day: the last day).
        var endDate: String?
    }

    static func read(date: String?, startTime: String?, endTime: String?, endDate: String?, zone: TimeZone)
        throws(DeviceEventPayload.FieldError) -> Span
    {
        guard let date else { throw .init(field: "date", message: "date (YYYY-MM-DD) is required") }
        let calendar = gregorian(zone)
        guard let day = Self.day(date) else { throw .init(field: "date", message: "\"\(date)\" is not a day YYYY-MM-DD") }
        var lastDay = day
        if let endDate {
            guard let parsed = Self.day(endDate) else { throw .init(field: "endDate", message: "\"\(endDate)\" is not a day YYYY-MM-DD") }
            lastDay = parsed
        }
        switch (startTime.flatMap { $0.isEmpty ? nil : $0 }, endTime.flatMap { $0.isEmpty ? nil : $0 }) {
        case (nil, nil):
            guard let first = instant(day, hour: 0, minute: 0, calendar), let afterLast = calendar.date(byAdding: .day, value: 1, to: instant(lastDay, hour: 0, minute: 0, calendar) ?? first)
            else { throw .init(field: "date", message: "\"\(date)\" is not a day of the calendar") }
            guard afterLast > first else { throw .init(field: "endDate", message: "endDate \(endDate ?? "") is before date \(date)") }
            return Span(start: first, end: afterLast, allDayStart: text(day), allDayEnd: text(components(afterLast, calendar)))
        case (let start?, let end?):
            guard let startClock = clock(start) else { throw .init(field: "startTime", message: "\"\(start)\" is not a time HH:mm") }
            guard let endClock = clock(end) else { throw .init(field: "endTime", message: "\"\(end)\" is not a time HH:mm") }
            guard let first = instant(day, hour: startClock.hour, minute: startClock.minute, calendar),
                let last = instant(lastDay, hour: endClock.hour, minute: endClock.minute, calendar)
            else { throw .init(field: "date", message: "\"\(date)\" is not a day of the calendar") }
            guard last >= first else {
                throw .init(
                    field: endDate == nil ? "endTime" : "endDate",
                    message: "the event ends before it starts; send endDate for an event that ends on a later day")
            }
            return Span(start: first, end: last)
        case (nil, _?):
            throw .init(field: "startTime", message: "startTime is required with endTime (omit both for an all-day event)")
        case (_?, nil):
            throw .init(field: "endTime", message: "endTime is required with startTime (omit both for an all-day event)")
        }
    }

    /// The local days and times of a span, in `zone`.
    static func local(start: Date, end: Date, isAllDay: Bool, allDayStart: String?, allDayEnd: String?, zone: TimeZone) -> Local {
        let calendar = gregorian(zone)
        if isAllDay {
            let first = allDayStart ?? text(components(start, calendar))
            let afterLast = allDayEnd.flatMap(day) ?? components(end, calendar)
            let lastDay = instant(afterLast, hour: 0, minute: 0, calendar).flatMap { calendar.date(byAdding: .day, value: -1, to: $0) }
                .map { text(components($0, calendar)) } ?? first
            return Local(date: first, endDate: lastDay == first ? nil : lastDay)
        }
        let startParts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: start)
        let endParts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: end)
        let startDay = text(startParts)
        let endDay = text(endParts)
        return Local(
            date: startDay, startTime: clockText(startParts), endTime: clockText(endParts), endDate: endDay == startDay ? nil : endDay)
    }

    private static func gregorian(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// `YYYY-MM-DD` as year, month and day, checked against the calendar (no 31 April).
    static func day(_ text: String) -> DateComponents? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1, (1...12).contains(month), day >= 1
        else { return nil }
        let daysInMonth = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= daysInMonth[month - 1] else { return nil }
        return DateComponents(year: year, month: month, day: day)
    }

    /// `HH:mm` (or `HH:mm:ss`, seconds ignored) as hour and minute.
    static func clock(_ text: String) -> (hour: Int, minute: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        if parts.count == 3 { guard let second = Int(parts[2]), (0...59).contains(second) else { return nil } }
        return (hour, minute)
    }

    private static func instant(_ day: DateComponents, hour: Int, minute: Int, _ calendar: Calendar) -> Date? {
        var parts = day
        parts.hour = hour
        parts.minute = minute
        return calendar.date(from: parts)
    }

    private static func components(_ date: Date, _ calendar: Calendar) -> DateComponents {
        calendar.dateComponents([.year, .month, .day], from: date)
    }

    private static func text(_ parts: DateComponents) -> String {
        func pad(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(parts.year, 4) + "-" + pad(parts.month, 2) + "-" + pad(parts.day, 2)
    }

    private static func clockText(_ parts: DateComponents) -> String {
        (parts.hour ?? 0 < 10 ? "0" : "") + String(parts.hour ?? 0) + ":" + (parts.minute ?? 0 < 10 ? "0" : "") + String(parts.minute ?? 0)
    }
}
