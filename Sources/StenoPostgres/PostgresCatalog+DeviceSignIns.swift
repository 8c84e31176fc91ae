import Foundation
import PostgresNIO
import StenoCatalog

/// Device sign-ins in progress; see ``DeviceSignInStore``. Finishing is one conditional
/// statement, so of two daemons finishing one sign-in exactly one records its outcome.
extension PostgresCatalog: DeviceSignInStore {
    public func addDeviceSignIn(_ signIn: DeviceSignInRecord) async throws {
        try await execute(
            """
            INSERT INTO device_sign_ins (id, owner_id, sealed_request, created_at, expires_at, state, account_id, job_id, message, finished_at)
            VALUES (\(signIn.id), \(signIn.ownerID), \(signIn.sealedRequest), \(Self.milliseconds(signIn.createdAt)),
                    \(Self.milliseconds(signIn.expiresAt)), \(signIn.outcome?.state ?? "pending"), \(signIn.outcome?.accountID),
                    \(signIn.outcome?.jobID), \(signIn.outcome?.message), \(signIn.finishedAt.map(Self.milliseconds)))
            """)
    }

    public func deviceSignIn(id: String) async throws -> DeviceSignInRecord? {
        guard
            let row = try await row(
                """
                SELECT id, owner_id, sealed_request, created_at, expires_at, state, account_id, job_id, message, finished_at
                FROM device_sign_ins WHERE id = \(id)
                """)
        else { return nil }
        return try Self.deviceSignIn(row)
    }

    public func unfinishedDeviceSignIns(ownerID: Int64?) async throws -> [DeviceSignInRecord] {
        try await rows(
            """
            SELECT id, owner_id, sealed_request, created_at, expires_at, state, account_id, job_id, message, finished_at
            FROM device_sign_ins WHERE state <> 'succeeded' AND (\(ownerID)::bigint IS NULL OR owner_id = \(ownerID))
            ORDER BY created_at DESC, id
            """
        ).map(Self.deviceSignIn)
    }

    private static func deviceSignIn(_ row: PostgresRow) throws -> DeviceSignInRecord {
        let (id, ownerID, sealed, createdAt, expiresAt, state, accountID, jobID, message, finishedAt) = try row.decode(
            (String, Int64, ByteBuffer, Int64, Int64, String, Int64?, Int64?, String?, Int64?).self)
        return DeviceSignInRecord(
            id: id, ownerID: ownerID, sealedRequest: Data(sealed.readableBytesView), createdAt: Self.date(milliseconds: createdAt),
            expiresAt: Self.date(milliseconds: expiresAt),
            outcome: DeviceSignInOutcome(state: state, accountID: accountID, jobID: jobID, message: message),
            finishedAt: finishedAt.map { Self.date(milliseconds: $0) })
    }

    public func finishDeviceSignIn(id: String, outcome: DeviceSignInOutcome, now: Date) async throws -> Bool {
        let rows = try await rows(
            """
            UPDATE device_sign_ins SET state = \(outcome.state), account_id = \(outcome.accountID), job_id = \(outcome.jobID),
                message = \(outcome.message), finished_at = \(Self.milliseconds(now))
            WHERE id = \(id) AND state = 'pending' RETURNING id
            """)
        return !rows.isEmpty
    }

    public func removeDeviceSignIns(endedBefore cutoff: Date, failedBefore failedCutoff: Date) async throws -> Int {
        let rows = try await rows(
            """
            DELETE FROM device_sign_ins
            WHERE CASE state WHEN 'failed' THEN finished_at < \(Self.milliseconds(failedCutoff))
                  ELSE coalesce(finished_at, expires_at) < \(Self.milliseconds(cutoff)) END
            RETURNING id
            """)
        return rows.count
    }
}
