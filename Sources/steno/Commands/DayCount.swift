import Foundation

/// A number of days as commands take it: `30d`, `2w`, or `30`.
enum DayCount {
    static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let days = Int(trimmed) { return days }
        guard let unit = trimmed.last, let count = Int(trimmed.dropLast()) else { return nil }
        switch unit {
        case "d": return count
        case "w": return count * 7
        default: return nil
        }
    }
}
