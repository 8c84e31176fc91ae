import Foundation
import StenoCore

/// The end of an all-day event as calendars store it: the day after its last.
package enum AllDayEnd {
    /// The last day of an all-day event from the day after it (how calendars store the end),
    /// never before the first.
    package static func lastDay(before end: String?, first: String?) -> String? {
        guard let end else { return first }
        let parts = end.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return first }
        let previous = CivilDays.from(year: parts[0], month: parts[1], day: parts[2]) - 1
        let day = CivilDays.civil(previous)
        let text = String(format: "%04d-%02d-%02d", day.year, day.month, day.day)
        guard let first, text >= first else { return first }
        return text
    }
}
