import Foundation

/// What `people.forget` erased: the address and its names are gone from the mirrored events,
/// the recordings' attendee caches, the meetings' people and the search index, each entry
/// replaced by ``redactedAddress``.
public struct ForgetReport: Sendable, Hashable, Codable {
    /// What the person's entries read now, and what a later sync stores for them.
    public var redactedAddress: String
    /// Whether the address had been forgotten before (the erasure ran again all the same).
    public var wasForgotten: Bool
    /// Mirrored events whose organizer or attendee it was.
    public var events: Int
    /// Recordings whose cached attendees named it.
    public var recordings: Int
    /// Meetings whose people and search entry no longer hold it.
    public var meetings: Int
    /// The Steno user the address belonged to (their account stays, without it).
    public var user: String?
    /// The recordings that user owns, for the admin to delete if the erasure covers them.
    public var ownedRecordings: [Int64]

    public init(
        redactedAddress: String, wasForgotten: Bool, events: Int, recordings: Int, meetings: Int, user: String?, ownedRecordings: [Int64]
    ) {
        self.redactedAddress = redactedAddress
        self.wasForgotten = wasForgotten
        self.events = events
        self.recordings = recordings
        self.meetings = meetings
        self.user = user
        self.ownedRecordings = ownedRecordings
    }
}
