import Foundation
import StenoCore

/// Meetings, their attendees and full-text search, with visibility enforced in the queries:
/// members see meetings they organised, were invited to (by email) or hold in their own
/// calendars, and meetings their own recordings are linked to; admins see everything.
public protocol MeetingStore: Sendable {
    /// Meetings ordered by start, then id.
    func meetings(_ query: MeetingQuery) async throws -> [MeetingSummary]
    /// One meeting with attendees and recordings. Throws `.notFound`, also when not visible.
    func meeting(id: Int64, visibleTo userID: Int64?) async throws -> MeetingDetail
    /// Meetings and recordings matching `text` (plain words match as prefixes): the meeting
    /// hits by rank, then the recording hits by rank; `limit` of them from position `offset`.
    /// Throws `.invalid` for a text beyond `SearchTerms`' bounds.
    func search(_ text: String, visibleTo userID: Int64?, offset: Int, limit: Int) async throws -> [SearchHit]
}
