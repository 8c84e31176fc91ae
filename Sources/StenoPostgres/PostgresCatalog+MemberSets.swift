import Foundation
import PostgresNIO
import StenoStore

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

    /// `user`'s visible recordings by id, as held for `stamp` or read now in `tx`.
    func visibleRecordingIDs(_ tx: PostgresTransaction, of user: Int64, stamp: String) async throws -> [Int64] {
        if let ids = visibleSets.sets(of: user, at: stamp)?.recordings { return ids }
        let found = try await tx.rows(PostgresQuery.numbered(Self.visibleRecordingIDs(of: "$1::bigint"), [user])).map { try $0.decode(Int64.self) }
        let ids = Set(found).sorted()
        visibleSets.store(.init(recordings: ids), of: user, at: stamp)
        return ids
    }
}
