import Foundation
import GRDB
import StenoCore

/// A member's `--with` page read from the cheaper side: their held meetings (in the range),
/// each tested against `meeting_people` by its key, or the address's rows of
/// `meeting_people` walked in one index range and kept when held. A test by key is a lookup of
/// its own, several times the cost of a walked row, so the walk is taken while the address
/// has at most ``MemberPageCandidates/addressRowsPerCandidate`` rows per held candidate.
extension SQLiteCatalog {
    /// The ids a member's page hands its statement (``meetingListing(_:among:titleCandidates:)``),
    /// in the listing's order: their meetings of `keys` that `query`'s range and position leave,
    /// narrowed to the meetings of `query.withEmail` when the address's rows were the cheaper
    /// side (`haveAddress`: the statement need not test the address again).
    static func memberCandidates(
        _ db: Database, _ keys: [MeetingKey], for query: MeetingQuery,
        addressRowsPerCandidate: Int = MemberPageCandidates.addressRowsPerCandidate
    ) throws -> (ids: [Int64], haveAddress: Bool) {
        let held = MemberPageCandidates.meetings(keys, for: query)
        guard let email = query.withEmail, !held.isEmpty else { return (held, false) }
        let bound = held.count * addressRowsPerCandidate
        let rows = try Int64.fetchCursor(
            db.cachedStatement(sql: addressMeetingsStatement),
            arguments: ["email": email, "limit": bound + 1])
        let heldSet = Set(held)
        var found = Set<Int64>()
        var read = 0
        while let id = try rows.next() {
            read += 1
            // More rows than the bound: testing the held meetings one by one is cheaper.
            if read > bound { return (held, false) }
            if heldSet.contains(id) { found.insert(id) }
        }
        return (held.filter(found.contains), true)
    }

    /// The meetings of the address `:email`, up to `:limit` rows, read from the covering index
    /// `meeting_people_walk` (its plan is checked by tests).
    static let addressMeetingsStatement = "SELECT meeting_id FROM meeting_people WHERE email = :email LIMIT :limit"
}
