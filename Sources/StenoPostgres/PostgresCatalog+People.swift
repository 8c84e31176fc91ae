import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

extension PostgresCatalog: PeopleStore {
    /// The advisory lock an erasure holds exclusively and every change set shares (any
    /// constant the catalog uses for nothing else): a sync never writes a person back between
    /// the erasure's read of the mirror and its commit.
    static let erasureLockKey: Int64 = 0x5374_656E_6F46_6F72  // "StenoFor"

    public func person(email: String) async throws -> PersonRecord {
        let address = ForgottenPerson.normalized(email)
        return try await transaction { tx in try await Self.person(address, in: tx) }
    }

    public func forget(email: String, now: Date) async throws -> ForgetReport {
        let address = ForgottenPerson.normalized(email)
        let key = ForgottenPerson.key(of: address)
        let redacted = ForgottenPerson.redactedAddress(key: key)
        let milliseconds = Self.milliseconds(now)
        return try await transaction { tx in
            try await tx.execute("SELECT pg_advisory_xact_lock(\(Self.erasureLockKey))")
            let record = try await Self.person(address, in: tx)
            try await tx.execute(.numbered(CatalogSQL.rememberForgotten(key: "$1", at: "$2"), [key, milliseconds]))
            for statement in CatalogSQL.People(email: "$1::text").erasure(redacted: "$2::text") {
                try await tx.execute(.numbered(statement.sql, statement.bindsRedacted ? [address, redacted] : [address]))
            }
            let meetingIDs = Set(record.meetings.map(\.id))
            try await PostgresMirrorWriter(tx: tx, now: milliseconds).refreshSearch(meetingIDs: meetingIDs)
            return ForgetReport(
                redactedAddress: redacted, wasForgotten: record.forgotten, events: record.events,
                recordings: record.linkedRecordings.count, meetings: meetingIDs.count, user: record.user,
                ownedRecordings: record.ownedRecordings)
        }
    }

    private static func person(_ address: String, in tx: PostgresTransaction) async throws -> PersonRecord {
        let sql = CatalogSQL.People(email: "$1::text")
        let user = try await tx.rows(.numbered(sql.user, [address])).first?.decode((Int64, String).self)
        var owned: [Int64] = []
        if let user {
            owned = try await tx.rows("SELECT id FROM recordings WHERE owner_id = \(user.0) ORDER BY id").map { try $0.decode(Int64.self) }
        }
        let forgotten = try await tx.rows(.numbered(CatalogSQL.isForgotten(key: "$1"), [ForgottenPerson.key(of: address)])).isEmpty == false
        return PersonRecord(
            email: address,
            names: try await tx.rows(.numbered(sql.names, [address])).map { try $0.decode(String.self) },
            user: user?.1,
            forgotten: forgotten,
            events: try await tx.rows(.numbered(sql.eventCount, [address])).first?.decode(Int.self) ?? 0,
            meetings: try await tx.rows(.numbered(sql.meetings, [address])).map { row in
                let (id, title, startsAt) = try row.decode((Int64, String, Int64?).self)
                return PersonMeeting(id: id, title: title, startsAt: startsAt.map(Self.date(milliseconds:)))
            },
            linkedRecordings: try await tx.rows(.numbered(sql.linkedRecordings, [address])).map { try $0.decode(Int64.self) },
            ownedRecordings: owned)
    }
}
