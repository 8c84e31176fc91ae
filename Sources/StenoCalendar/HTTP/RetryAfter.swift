import Foundation

/// `Retry-After` (RFC 9110 §10.2.3): delta-seconds, or an HTTP date.
public enum RetryAfter {
    /// The delay a header value asks for; nil when it is neither form. A date in the past is
    /// a zero delay; absurd delays are capped at a day.
    public static func parse(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 {
            return .seconds(min(seconds, 86_400))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                let delay = max(0, min(date.timeIntervalSince(now), 86_400))
                return .milliseconds(Int64(delay * 1000))
            }
        }
        return nil
    }
}
