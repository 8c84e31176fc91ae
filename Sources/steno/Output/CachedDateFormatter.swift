import Foundation

/// Date formatters made once per zone and pattern: making one costs far more than using it
/// (ICU loads its symbols each time), and `steno meetings --all -o csv` over 20,000 meetings
/// formats 40,000 times — perf had 79% of that command in making formatters.
enum CachedDateFormatter {
    private static let formatters = LockedFormatters()

    /// `date` written with `pattern` (a DateFormatter pattern, POSIX locale) in `zone`.
    static func string(_ date: Date, pattern: String, in zone: TimeZone) -> String {
        formatters.withFormatter(key: zone.identifier + "\u{0}" + pattern) { formatter in
            if formatter.dateFormat != pattern {
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = zone
                formatter.dateFormat = pattern
            }
            return formatter.string(from: date)
        }
    }
}

/// The formatters behind a lock (Swift 6: shared mutable state must be; a DateFormatter is used
/// by one thread at a time).
private final class LockedFormatters: @unchecked Sendable {
    private let lock = NSLock()
    private var formatters: [String: DateFormatter] = [:]

    func withFormatter<T>(key: String, _ body: (DateFormatter) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        if let formatter = formatters[key] { return body(formatter) }
        let formatter = DateFormatter()
        formatters[key] = formatter
        return body(formatter)
    }
}
