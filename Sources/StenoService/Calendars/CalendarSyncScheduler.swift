import Foundation
import Logging
import ServiceLifecycle
import StenoCalendar
import StenoCatalog

/// Enqueues a `calendar.sync` job for every account whose next sync is due (each account
/// syncs `[calendars] sync_interval_minutes` after its last attempt; a failing one after its
/// server's Retry-After).
///
/// Local ICS files are also checked on every tick (a `stat` each) and synced as soon as they
/// change. The unique key of the job keeps one live sync per account, so a slow sync is never
/// doubled and several daemons sharing one catalog enqueue it once.
struct CalendarSyncScheduler: Service {
    let store: any CalendarStore
    let queue: JobQueue
    let tick: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    do {
                        try await enqueueDue(now: Date())
                    } catch {
                        logger.warning("could not enqueue calendar syncs: \(error)")
                    }
                    try await Task.sleep(for: tick)
                }
            }
        } catch is CancellationError {
            return
        }
    }

    /// Enqueues the accounts due at `now`; returns how many jobs were new.
    @discardableResult
    func enqueueDue(now: Date) async throws -> Int {
        var due = try await store.accountsDue(at: now)
        for account in try await store.accounts(ownerID: nil)
        where account.provider == .ics && account.health != .disabled && !due.contains(account.id) {
            let calendars = try await store.calendars(accountID: account.id, ownerID: nil)
            if ICSProvider.localSourceChanged(account: account, calendars: calendars) { due.append(account.id) }
        }
        var enqueued = 0
        for accountID in due {
            if try await queue.enqueue(CalendarSyncJobHandler.draft(accountID: accountID)).isNew { enqueued += 1 }
        }
        return enqueued
    }
}
