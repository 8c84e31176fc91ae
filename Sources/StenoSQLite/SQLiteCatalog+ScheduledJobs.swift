import Foundation
import GRDB
import StenoCatalog
import StenoCore

extension SQLiteCatalog {
    public func enqueueScheduled(_ draft: JobDraft, schedule: String, fireTime: Date) async throws -> EnqueueResult? {
        try await writer.write { db in
            let fire = Self.milliseconds(fireTime)
            try db.execute(sql: "INSERT OR IGNORE INTO schedule_fires (schedule, fire_at) VALUES (?, ?)", arguments: [schedule, fire])
            guard db.changesCount > 0 else { return nil }
            try db.execute(
                sql: "DELETE FROM schedule_fires WHERE schedule = ? AND fire_at < ?",
                arguments: [schedule, fire - Self.milliseconds(Date(timeIntervalSince1970: scheduleFireRetention))])
            return try Self.enqueue(draft, in: db)
        }
    }
}
