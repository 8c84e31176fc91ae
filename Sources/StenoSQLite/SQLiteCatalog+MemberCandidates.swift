import Foundation
import GRDB
import StenoCatalog
import StenoCore

/// The meetings a member's page hands its statement (``meetingListing(_:among:titleCandidates:)``):
/// their held meetings that the page's range and position leave, narrowed in memory to those of
/// `--with`'s address and `--title`'s text through the people and titles held with their set
/// (``HeldMeetingPeople``, ``HeldMeetingTitles``), and to those with or without a recording
/// through the recorded flags held (``HeldMeetingRecordings``), so the statement tests none of
/// them again.
///
/// A member holding more than ``MemberPageCandidates/heldDetailsLimit`` meetings holds none of
/// these: their `--with` page reads the cheaper side from the catalog, their held
/// meetings each tested against `meeting_people` by its key, or the address's rows walked in
/// one index range and kept when held. A test by key is a lookup of its own, several times the
/// cost of a walked row, so the walk is taken while the address has at most
/// ``MemberPageCandidates/addressRowsPerCandidate`` rows per held candidate.
extension SQLiteCatalog {
    /// The candidates of `user`'s page for `query` among their held meetings `keys` (read at
    /// `generation`).
    func memberCandidates(
        _ db: Database, of user: Int64, keys: [MeetingKey], generation: UInt64, for query: MeetingQuery
    ) throws -> MemberPageCandidates.Narrowed {
        let holds = keys.count <= MemberPageCandidates.heldDetailsLimit
        let people = holds && query.withEmail != nil ? try heldMeetingPeople(db, of: user, keys: keys, generation: generation) : nil
        let titles = holds && query.titleContains.map(HeldMeetingTitles.canAnswer) == true
            ? try heldMeetingTitles(db, of: user, keys: keys, generation: generation) : nil
        let recorded = holds && query.recorded != nil ? try heldMeetingRecordings(db, of: user, keys: keys, generation: generation) : nil
        var narrowed = MemberPageCandidates.narrowed(keys, for: query, people: people, titles: titles, recorded: recorded)
        if let email = query.withEmail, !narrowed.haveAddress {
            // No people held for this member (too many meetings or rows): the cheaper side.
            let candidates = try Self.addressCandidates(db, among: narrowed.ids, withEmail: email)
            narrowed.ids = candidates.ids
            narrowed.haveAddress = candidates.haveAddress
        }
        return narrowed
    }

    /// The cheaper side of a `--with` page of a member whose people are not held: `held` (their
    /// candidates, in the listing's order) narrowed to the meetings of `email` when the
    /// address's rows were the cheaper side (`haveAddress`: the statement need not test the
    /// address again), else `held` as given, for the statement to test each by key.
    static func addressCandidates(
        _ db: Database, among held: [Int64], withEmail email: String,
        addressRowsPerCandidate: Int = MemberPageCandidates.addressRowsPerCandidate
    ) throws -> (ids: [Int64], haveAddress: Bool) {
        guard !held.isEmpty else { return (held, false) }
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
