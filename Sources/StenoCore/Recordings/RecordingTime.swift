import Foundation

/// Decides when a recording started, from the most trusted source available:
/// sidecar > container metadata > a date in the file name > the file's mtime.
public enum RecordingTime {
    /// The start time and its source.
    public static func resolve(
        sidecar: Date?, container: Date?, fileName: String, modified: Date?, timeZone: TimeZone
    ) -> (date: Date, source: RecordedAtSource)? {
        if let sidecar { return (sidecar, .sidecar) }
        if let container { return (container, .container) }
        if let fromName = fromFileName(fileName, timeZone: timeZone) { return (fromName, .fileName) }
        if let modified { return (modified, .mtime) }
        return nil
    }

    /// A date (and time, when present) written in a file name, read in `timeZone`:
    /// `2026-11-20`, `20261120`, `2026-11-20T09-30`, `2026-11-20 09.30.15`, `20261120_093015`,
    /// `Recording 2026-11-20 at 09.30.15`. Years 1990–2100 only, so numbers that merely look
    /// like dates (ids, counters) are not mistaken for them.
    public static func fromFileName(_ name: String, timeZone: TimeZone) -> Date? {
        let base = (name as NSString).deletingPathExtension
        guard let regex = FileNameDatePattern.shared.regex,
            let match = regex.firstMatch(in: base, range: NSRange(base.startIndex..., in: base))
        else { return nil }
        func number(_ group: Int) -> Int? {
            guard let range = Range(match.range(at: group), in: base) else { return nil }
            return Int(base[range])
        }
        guard let year = number(1), let month = number(2), let day = number(3) else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = number(4) ?? 0
        components.minute = number(5) ?? 0
        components.second = number(6) ?? 0
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day  // rejects 2026-02-31
        else { return nil }
        return date
    }
}

/// The file-name date pattern, compiled once: compiling it per file cost more than parsing the
/// file. `NSRegularExpression` is immutable and documented safe to use from several threads.
private final class FileNameDatePattern: @unchecked Sendable {
    static let shared = FileNameDatePattern()

    let regex = try? NSRegularExpression(
        pattern: #"(?<!\d)((?:19|20)\d\d)[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?:(?:[T _-]|\s+at\s+)([01]\d|2[0-3])[-_.:h]?([0-5]\d)(?:[-_.:m]?([0-5]\d))?)?(?!\d)"#,
        options: [.caseInsensitive])
}
