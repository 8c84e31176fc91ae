import Foundation
import GRDB
import StenoCore

/// A member's visible sets as ``VisibleSetCache`` holds them for SQLite, stamped with the
/// generation of the catalog's `ChangeObserver` (read by the caller before its read began).
/// Listings and searches then read only the part of a set a page needs
/// (``MemberPageCandidates``), instead of building the whole set through its joins and
/// testing every meeting of the range against it on every page.
extension SQLiteCatalog {
    /// The generation a member's sets are stamped with: read it before the read that uses them.
    var visibleSetsGeneration: UInt64 { statisticsCache.generation }

    /// `user`'s visible meetings in ascending listing order, as held for `generation` or
    /// read now in `db` (a read that began at `generation` or later).
    func visibleMeetingKeys(_ db: Database, of user: Int64, generation: UInt64) throws -> [MeetingKey] {
        if let keys = visibleSets.sets(of: user, at: generation)?.meetings { return keys }
        // Unordered, so the set drives (its meetings by id); sorted here: asked to order,
        // SQLite may walk every meeting by start testing each against the set.
        var keys: [MeetingKey] = []
        let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.visibleMeetingKeysStatement), arguments: ["v": user])
        while let row = try rows.next() { keys.append(MeetingKey(start: row[0], id: row[1])) }
        keys.sort()
        visibleSets.store(.init(meetings: keys), of: user, at: generation)
        return keys
    }

    /// The start and id of every meeting `:v` may see (its plan is checked by tests).
    static let visibleMeetingKeysStatement = "SELECT m.starts_at, m.id FROM meetings m WHERE m.id IN (\(visibleMeetingIDs(of: ":v")))"

    /// `user`'s visible recordings by id, as held for `generation` or read now in `db`.
    func visibleRecordingIDs(_ db: Database, of user: Int64, generation: UInt64) throws -> [Int64] {
        if let ids = visibleSets.sets(of: user, at: generation)?.recordings { return ids }
        let found = try Int64.fetchAll(db.cachedStatement(sql: Self.visibleRecordingIDs(of: ":v")), arguments: ["v": user])
        let ids = Set(found).sorted()
        visibleSets.store(.init(recordings: ids), of: user, at: generation)
        return ids
    }

    /// `user`'s visible meetings and recordings as JSON arrays of ids, as held for
    /// `generation` or made now from the sets (read in `db` if need be).
    func visibleIDLists(_ db: Database, of user: Int64, generation: UInt64) throws -> (meetings: String, recordings: String) {
        if let lists = visibleSets.sets(of: user, at: generation)?.lists { return lists }
        let lists = (
            meetings: Self.jsonArray(try visibleMeetingKeys(db, of: user, generation: generation).lazy.map(\.id)),
            recordings: Self.jsonArray(try visibleRecordingIDs(db, of: user, generation: generation)))
        visibleSets.store(.init(lists: lists), of: user, at: generation)
        return lists
    }
}
