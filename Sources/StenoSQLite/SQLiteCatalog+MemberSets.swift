import Foundation
import GRDB
import StenoCatalog
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
    static let visibleMeetingKeysStatement = "SELECT m.starts_at, m.id FROM meetings m WHERE m.id IN (\(CatalogSQL.visibleMeetingIDs(of: ":v")))"

    /// `user`'s visible recordings by id, as held for `generation` or read now in `db`.
    func visibleRecordingIDs(_ db: Database, of user: Int64, generation: UInt64) throws -> [Int64] {
        if let ids = visibleSets.sets(of: user, at: generation)?.recordings { return ids }
        let found = try Int64.fetchAll(db.cachedStatement(sql: CatalogSQL.visibleRecordingIDs(of: ":v")), arguments: ["v": user])
        let ids = Set(found).sorted()
        visibleSets.store(.init(recordings: ids), of: user, at: generation)
        return ids
    }

    /// `user`'s visible recordings in ascending `sort` order, as held for `generation` or read
    /// now in `db` (each key by its recording's id).
    func visibleRecordingOrder(_ db: Database, of user: Int64, sort: RecordingSort, generation: UInt64) throws -> HeldRecordingOrder {
        if let held = visibleSets.sets(of: user, at: generation)?.recordingOrder, held.sort == sort { return held }
        let ids = try visibleRecordingIDs(db, of: user, generation: generation)
        var keys: [RecordingPosition] = []
        keys.reserveCapacity(ids.count)
        let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.recordingKeysStatement(sort)), arguments: [Self.jsonArray(ids)])
        while let row = try rows.next() { keys.append(RecordingPosition(key: row[1], id: row[0])) }
        let held = HeldRecordingOrder(sort: sort, keys: keys)
        visibleSets.store(.init(recordingOrder: held), of: user, at: generation)
        return held
    }

    /// The id and `sort` key of each recording of the JSON array `?`, each read by its id (its
    /// plan is checked by tests).
    static func recordingKeysStatement(_ sort: RecordingSort) -> String {
        let key = RecordingOrder(sort: sort, descending: false).sqlKey(rangeGiven: false)
        return "SELECT r.id, CAST(\(key) AS REAL) FROM json_each(?) visible CROSS JOIN recordings r ON r.id = visible.value"
    }

    /// `user`'s visible meetings' ids in ascending order, as held for `generation` or made now
    /// from the set (read in `db` if need be).
    func visibleMeetingIDs(_ db: Database, of user: Int64, generation: UInt64) throws -> [Int64] {
        if let ids = visibleSets.sets(of: user, at: generation)?.meetingIDs { return ids }
        let ids = try visibleMeetingKeys(db, of: user, generation: generation).map(\.id).sorted()
        visibleSets.store(.init(meetingIDs: ids), of: user, at: generation)
        return ids
    }

    /// `user`'s held meetings `keys` by address, as held for `generation` or indexed now from
    /// their rows of `meeting_people` (held with `keys`, which its positions point into).
    func heldMeetingPeople(_ db: Database, of user: Int64, keys: [MeetingKey], generation: UInt64) throws -> HeldMeetingPeople {
        try visibleSets.detail(\.people, of: user, at: generation, keys: keys) {
            let limit = HeldMeetingPeople.rowLimit(for: keys)
            var rows: [(meetingID: Int64, email: String)] = []
            let cursor = try Row.fetchCursor(
                db.cachedStatement(sql: Self.heldMeetingPeopleStatement), arguments: [Self.jsonArray(keys.lazy.map(\.id)), limit + 1])
            while let row = try cursor.next() { rows.append((row[0], row[1])) }
            guard rows.count <= limit else { return .tooMany(fold: HeldMeetingPeople.asciiCaseFolded) }
            return HeldMeetingPeople(keys: keys, rows: rows, fold: HeldMeetingPeople.asciiCaseFolded)
        }
    }

    /// The people rows of the meetings of the JSON array `?1`, at most `?2`, each meeting's read
    /// by its key (its plan is checked by tests).
    static let heldMeetingPeopleStatement = """
        SELECT p.meeting_id, p.email FROM json_each(?1) j CROSS JOIN meeting_people p ON p.meeting_id = j.value LIMIT ?2
        """

    /// `user`'s held meetings' titles in the order of `keys`, as held for `generation` or read
    /// now (held with `keys`).
    func heldMeetingTitles(_ db: Database, of user: Int64, keys: [MeetingKey], generation: UInt64) throws -> HeldMeetingTitles {
        try visibleSets.detail(\.titles, of: user, at: generation, keys: keys) {
            var texts = [String](repeating: "", count: keys.count)
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: Self.heldMeetingTitlesStatement), arguments: [Self.jsonArray(keys.lazy.map(\.id))])
            while let row = try cursor.next() {
                let position: Int = row[0]
                if texts.indices.contains(position) { texts[position] = row[1] }
            }
            return HeldMeetingTitles(texts)
        }
    }

    /// The titles of the meetings of the JSON array `?` with their positions in it, each read by
    /// its id (its plan is checked by tests).
    static let heldMeetingTitlesStatement = """
        SELECT j.key, m.title FROM json_each(?) j CROSS JOIN meetings m ON m.id = j.value
        """

    /// Which of `user`'s held meetings `keys` have a recording, as held for `generation` or read
    /// now (held with `keys`).
    func heldMeetingRecordings(_ db: Database, of user: Int64, keys: [MeetingKey], generation: UInt64) throws -> HeldMeetingRecordings {
        try visibleSets.detail(\.recorded, of: user, at: generation, keys: keys) {
            let ids = try Int64.fetchAll(db.cachedStatement(sql: Self.heldMeetingRecordingsStatement), arguments: [Self.jsonArray(keys.lazy.map(\.id))])
            return HeldMeetingRecordings(keys: keys, recordedIDs: ids)
        }
    }

    /// The meetings of the JSON array `?` with a recording (a link `linked` or `orphaned`), each
    /// meeting's links read by its key (its plan is checked by tests).
    static let heldMeetingRecordingsStatement = """
        SELECT l.meeting_id FROM json_each(?) j CROSS JOIN links l ON l.meeting_id = j.value WHERE l.state IN ('linked', 'orphaned')
        """
}
