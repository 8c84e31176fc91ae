import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Cron fire times enqueued once across every daemon sharing the queue.
extension PostgresCatalog {
    public func enqueueScheduled(_ draft: JobDraft, schedule: String, fireTime: Date) async throws -> EnqueueResult? {
        let fire = Self.milliseconds(fireTime)
        let forgetBefore = fire - Int64(scheduleFireRetention * 1000)
        return try await transaction { tx in
            // The primary key decides: a daemon recording the same fire time at once waits for
            // this commit, then records nothing and skips it.
            guard
                try await tx.row(
                    "INSERT INTO schedule_fires (schedule, fire_at) VALUES (\(schedule), \(fire)) ON CONFLICT DO NOTHING RETURNING fire_at"
                ) != nil
            else { return nil }
            try await tx.execute("DELETE FROM schedule_fires WHERE schedule = \(schedule) AND fire_at < \(forgetBefore)")
            return try await Self.enqueue(draft, in: tx, now: Date())
        }
    }
}
