import Foundation
import StenoCore

/// Cron schedules on a queue several daemons share: each daemon sees every fire time, and the
/// catalog decides which one enqueues it.
public protocol ScheduledJobStore: Sendable {
    /// Enqueues `draft` for one fire time of `schedule`, once across every daemon: the first call
    /// for a fire time records it and enqueues (or finds the run still live under the draft's
    /// unique key); later calls for the same fire time return nil. The record and the job are
    /// written in one transaction, so a crash cannot lose a fire time another daemon skipped.
    func enqueueScheduled(_ draft: JobDraft, schedule: String, fireTime: Date) async throws -> EnqueueResult?
}

/// How long fire times are remembered: no daemon looks back further.
package let scheduleFireRetention: TimeInterval = 30 * 86_400
