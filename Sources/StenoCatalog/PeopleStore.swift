import Foundation
import StenoCore

/// The people the catalog holds: what it knows about an address, and its erasure.
public protocol PeopleStore: Sendable {
    /// What the catalog holds about `email` (lowercased); an empty record when nothing.
    func person(email: String) async throws -> PersonRecord

    /// Erases `email` in one transaction: its organizer and attendee entries in mirrored
    /// events and in recordings' attendee caches become its redacted address without a name,
    /// it leaves the meetings' people, the user's addresses and the search index, and its key
    /// is kept so that ``CalendarStore/applyCalendarChanges(_:accountID:now:)`` redacts it from
    /// then on. Running it again finds nothing more and reports what remains.
    func forget(email: String, now: Date) async throws -> ForgetReport
}
