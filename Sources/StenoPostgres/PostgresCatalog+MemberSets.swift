import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// A member's visible sets as ``VisibleSetCache`` holds them for PostgreSQL, stamped with the
/// snapshot of the transaction that read them (`pg_current_snapshot()`: the transactions
/// running, and the first not yet started). Every write takes a transaction id, so a snapshot
/// equal to the stamp sees exactly what the sets were read from, whichever daemon wrote: a
/// commit anywhere since changes it. Listings and searches read in one `REPEATABLE READ`
/// snapshot, so the stamp holds for their every statement.
extension PostgresCatalog {
    /// The stamp of `tx`'s snapshot, compared with the stamps of held sets.
    static func snapshotStamp(_ tx: PostgresTransaction) async throws -> String {
        guard let row = try await tx.rows("SELECT pg_current_snapshot()::text").first else {
            throw StoreError.failedPrecondition("PostgreSQL answered no snapshot")
        }
        return try row.decode(String.self)
    }

    /// `user`'s visible meetings in ascending listing order, as held for `stamp` or read now
    /// in `tx` (whose snapshot `stamp` is).
    func visibleMeetingKeys(_ tx: PostgresTransaction, of user: Int64, stamp: String) async throws -> [MeetingKey] {
        if let keys = visibleSets.sets(of: user, at: stamp)?.meetings { return keys }
        var keys = try await tx.rows(
            PostgresQuery.numbered("SELECT m.starts_at, m.id FROM meetings m WHERE m.id IN (\(Self.visibleMeetingIDs(of: "$1::bigint")))", [user])
        ).map { row in
            let (start, id) = try row.decode((Int64?, Int64).self)
            return MeetingKey(start: start, id: id)
        }
        keys.sort()
        visibleSets.store(.init(meetings: keys), of: user, at: stamp)
        return keys
    }

    /// `user`'s visible recordings in ascending `sort` order, as held for `stamp` or read now in
    /// `tx` (each key by its recording's id).
    func visibleRecordingOrder(_ tx: PostgresTransaction, of user: Int64, sort: RecordingSort, stamp: String) async throws -> HeldRecordingOrder {
        if let held = visibleSets.sets(of: user, at: stamp)?.recordingOrder, held.sort == sort { return held }
        let ids = try await visibleRecordingIDs(tx, of: user, stamp: stamp)
        let key = RecordingOrder(sort: sort, descending: false).sqlKey(rangeGiven: false)
        let keys = try await tx.rows(
            PostgresQuery.numbered("SELECT r.id, (\(key))::double precision FROM recordings r WHERE r.id = ANY($1::bigint[])", [ids])
        ).map { row in
            let (id, key) = try row.decode((Int64, Double).self)
            return RecordingPosition(key: key, id: id)
        }
        let held = HeldRecordingOrder(sort: sort, keys: keys)
        visibleSets.store(.init(recordingOrder: held), of: user, at: stamp)
        return held
    }

    /// `user`'s visible recordings by id, as held for `stamp` or read now in `tx`.
    func visibleRecordingIDs(_ tx: PostgresTransaction, of user: Int64, stamp: String) async throws -> [Int64] {
        if let ids = visibleSets.sets(of: user, at: stamp)?.recordings { return ids }
        let found = try await tx.rows(PostgresQuery.numbered(Self.visibleRecordingIDs(of: "$1::bigint"), [user])).map { try $0.decode(Int64.self) }
        let ids = Set(found).sorted()
        visibleSets.store(.init(recordings: ids), of: user, at: stamp)
        return ids
    }

    /// `user`'s held meetings `keys` by address, as held for `stamp` or indexed now in `tx` from
    /// their rows of `meeting_people` (held with `keys`, which its positions point into).
    /// Addresses fold as `citext` compares them.
    func heldMeetingPeople(_ tx: PostgresTransaction, of user: Int64, keys: [MeetingKey], stamp: String) async throws -> HeldMeetingPeople {
        try await visibleSets.detail(\.people, of: user, at: stamp, keys: keys) {
            let limit = HeldMeetingPeople.rowLimit(for: keys)
            let rows = try await tx.rows(
                PostgresQuery.numbered(
                    "SELECT p.meeting_id, p.email::text FROM meeting_people p WHERE p.meeting_id = ANY($1::bigint[]) LIMIT $2::bigint",
                    [keys.map(\.id), Int64(limit + 1)])
            ).map { row in
                let (meetingID, email) = try row.decode((Int64, String).self)
                return (meetingID: meetingID, email: email)
            }
            let fold: @Sendable (String) -> String = { $0.lowercased() }
            guard rows.count <= limit else { return .tooMany(fold: fold) }
            return HeldMeetingPeople(keys: keys, rows: rows, fold: fold)
        }
    }

    /// Which of `user`'s held meetings `keys` have a recording, as held for `stamp` or read now
    /// in `tx` (held with `keys`).
    func heldMeetingRecordings(_ tx: PostgresTransaction, of user: Int64, keys: [MeetingKey], stamp: String) async throws -> HeldMeetingRecordings {
        try await visibleSets.detail(\.recorded, of: user, at: stamp, keys: keys) {
            let ids = try await tx.rows(
                PostgresQuery.numbered(
                    "SELECT l.meeting_id FROM links l WHERE l.meeting_id = ANY($1::bigint[]) AND l.state IN ('linked', 'orphaned')",
                    [keys.map(\.id)])
            ).map { try $0.decode(Int64.self) }
            return HeldMeetingRecordings(keys: keys, recordedIDs: ids)
        }
    }
}
