import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog: PeopleStore {
    public func person(email: String) async throws -> PersonRecord {
        let address = ForgottenPerson.normalized(email)
        return try await writer.read { db in try Self.person(address, in: db) }
    }

    public func forget(email: String, now: Date) async throws -> ForgetReport {
        let address = ForgottenPerson.normalized(email)
        let key = ForgottenPerson.key(of: address)
        let redacted = ForgottenPerson.redactedAddress(key: key)
        return try await writer.writeWithoutTransaction { db in
            // Pages the erasure frees are zeroed, not left for a copy of the file to show.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
            var report: ForgetReport?
            try db.inTransaction(.immediate) {
                let record = try Self.person(address, in: db)
                try db.execute(sql: CatalogSQL.rememberForgotten(key: "?", at: "?"), arguments: [key, Self.milliseconds(now)])
                for statement in CatalogSQL.People(email: "?1").erasure(redacted: "?2") {
                    try db.execute(sql: statement.sql, arguments: statement.bindsRedacted ? [address, redacted] : [address])
                }
                let meetingIDs = Set(record.meetings.map(\.id))
                if !meetingIDs.isEmpty {
                    try MirrorWriter(db: db, now: Self.milliseconds(now)).refreshSearch(meetingIDs: meetingIDs)
                    // The index's old segments still spell the deleted rows until merged.
                    try db.execute(sql: "INSERT INTO meeting_search (meeting_search) VALUES ('optimize')")
                }
                report = ForgetReport(
                    redactedAddress: redacted, wasForgotten: record.forgotten, events: record.events,
                    recordings: record.linkedRecordings.count, meetings: meetingIDs.count, user: record.user,
                    ownedRecordings: record.ownedRecordings)
                return .commit
            }
            guard let report else { throw StoreError.invalid("the erasure of \(address) did not finish") }
            return report
        }
    }

    /// The forgotten keys, read inside the transaction that writes a change set.
    static func forgottenKeys(in db: Database) throws -> Set<String> {
        try Set(String.fetchAll(db.cachedStatement(sql: CatalogSQL.forgottenKeys)))
    }

    private static func person(_ address: String, in db: Database) throws -> PersonRecord {
        let sql = CatalogSQL.People(email: "?")
        let user = try Row.fetchOne(db, sql: sql.user, arguments: [address])
        let userID: Int64? = user?[0]
        return PersonRecord(
            email: address,
            names: try String.fetchAll(db, sql: sql.names, arguments: [address, address, address]),
            user: user?[1],
            forgotten: try Bool.fetchOne(
                db, sql: CatalogSQL.isForgotten(key: "?"), arguments: [ForgottenPerson.key(of: address)]) ?? false,
            events: try Int.fetchOne(db, sql: sql.eventCount, arguments: [address, address]) ?? 0,
            meetings: try Row.fetchAll(db, sql: sql.meetings, arguments: [address]).map { row in
                PersonMeeting(id: row[0], title: row[1], startsAt: (row[2] as Int64?).map(Self.date(milliseconds:)))
            },
            linkedRecordings: try Int64.fetchAll(db, sql: sql.linkedRecordings, arguments: [address]),
            ownedRecordings: try userID.map {
                try Int64.fetchAll(db, sql: "SELECT id FROM recordings WHERE owner_id = ? ORDER BY id", arguments: [$0])
            } ?? [])
    }
}
