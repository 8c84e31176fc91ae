import Foundation

/// Instants as every catalog stores them: whole milliseconds since 1970 (UTC), in SQLite and
/// PostgreSQL alike, so copying a catalog between them keeps every instant exactly.
package enum CatalogTime {
    /// Milliseconds since 1970 for a date.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date for a stored instant.
    package static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension CatalogTime {
    /// Whole milliseconds of a duration (negative durations count as zero).
    package static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
