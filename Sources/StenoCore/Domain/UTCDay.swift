import Foundation

/// The UTC calendar day of an instant, `2026-12-06`: how messages date a deletion or a hold,
/// the same for every reader whatever their zone.
public enum UTCDay {
    public static func text(_ date: Date) -> String {
        ISO8601DateFormatter.string(from: date, timeZone: TimeZone(identifier: "UTC") ?? .current, formatOptions: [.withFullDate])
    }
}
