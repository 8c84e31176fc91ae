import Foundation
import GRDB
import StenoCatalog

/// Device sign-ins in progress; see ``DeviceSignInStore``.
extension SQLiteCatalog {
    public func addDeviceSignIn(_ signIn: DeviceSignInRecord) async throws {
        try await writer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM device_sign_ins WHERE id = ?", arguments: [signIn.id]) == nil else {
                throw StoreError.conflict("a sign-in with id \(signIn.id) exists already")
            }
            try db.execute(
                sql: """
                    INSERT INTO device_sign_ins (id, owner_id, sealed_request, created_at, expires_at, state, account_id, job_id, message, finished_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    signIn.id, signIn.ownerID, signIn.sealedRequest, Self.milliseconds(signIn.createdAt), Self.milliseconds(signIn.expiresAt),
                    signIn.outcome?.state ?? "pending", signIn.outcome?.accountID, signIn.outcome?.jobID, signIn.outcome?.message,
                    signIn.finishedAt.map(Self.milliseconds),
                ])
        }
    }

    public func deviceSignIn(id: String) async throws -> DeviceSignInRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: Self.deviceSignInColumns + " WHERE id = ?", arguments: [id]).map(Self.deviceSignIn)
        }
    }

    public func unfinishedDeviceSignIns(ownerID: Int64?) async throws -> [DeviceSignInRecord] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: Self.deviceSignInColumns + " WHERE state <> 'succeeded' AND (? IS NULL OR owner_id = ?) ORDER BY created_at DESC, id",
                arguments: [ownerID, ownerID]
            ).map(Self.deviceSignIn)
        }
    }

    private static let deviceSignInColumns = """
        SELECT id, owner_id, sealed_request, created_at, expires_at, state, account_id, job_id, message, finished_at
        FROM device_sign_ins
        """

    private static func deviceSignIn(_ row: Row) -> DeviceSignInRecord {
        let finishedAt: Int64? = row["finished_at"]
        return DeviceSignInRecord(
            id: row["id"], ownerID: row["owner_id"], sealedRequest: row["sealed_request"],
            createdAt: date(milliseconds: row["created_at"]), expiresAt: date(milliseconds: row["expires_at"]),
            outcome: DeviceSignInOutcome(state: row["state"], accountID: row["account_id"], jobID: row["job_id"], message: row["message"]),
            finishedAt: finishedAt.map { date(milliseconds: $0) })
    }

    public func finishDeviceSignIn(id: String, outcome: DeviceSignInOutcome, now: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE device_sign_ins SET state = ?, account_id = ?, job_id = ?, message = ?, finished_at = ?
                    WHERE id = ? AND state = 'pending'
                    """,
                arguments: [outcome.state, outcome.accountID, outcome.jobID, outcome.message, Self.milliseconds(now), id])
            return db.changesCount > 0
        }
    }

    public func removeDeviceSignIns(endedBefore cutoff: Date, failedBefore failedCutoff: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: """
                    DELETE FROM device_sign_ins
                    WHERE CASE state WHEN 'failed' THEN finished_at < ? ELSE coalesce(finished_at, expires_at) < ? END
                    """,
                arguments: [Self.milliseconds(failedCutoff), Self.milliseconds(cutoff)])
            return db.changesCount
        }
    }
}
