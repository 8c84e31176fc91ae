import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `calendars.enable` and `calendars.disable`: which calendars of an account count. Members
/// switch the calendars of their own accounts; admins any.
extension AccountMethods {
    func registerCalendarSwitches(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.calendarsDisable, access: .user) { call, params in
            let result = try await methods.setEnabled(false, calendarID: params.id, caller: call.caller)
            call.logger.info("calendar disabled", metadata: ["calendar": "\(params.id)", "uid": "\(call.caller.credentials.uid)"])
            return result
        }
        table.register(StenoMethods.calendarsEnable, access: .user) { call, params in
            let result = try await methods.setEnabled(true, calendarID: params.id, caller: call.caller)
            call.logger.info("calendar enabled", metadata: ["calendar": "\(params.id)", "uid": "\(call.caller.credentials.uid)"])
            return result
        }
    }

    /// Switches a calendar the caller may manage. Disabling tombstones its events and queues
    /// the revalidation of the links they touch (the path a sync's deletions take); enabling
    /// queues a sync of its account, which mirrors it from the start. Switching it to what it
    /// is already queues nothing.
    func setEnabled(_ enabled: Bool, calendarID: Int64, caller: Caller) async throws -> CalendarSwitchResult {
        let visible = try await store.calendars(accountID: nil, ownerID: caller.isAdmin ? nil : caller.user?.id ?? -1)
        guard let calendar = visible.first(where: { $0.id == calendarID }) else {
            // Members do not learn which ids exist.
            throw StoreError.notFound(entity: "calendar", reference: String(calendarID))
        }
        guard calendar.isEnabled != enabled else { return CalendarSwitchResult(calendar: Self.summary(calendar), job: nil) }
        let started = Date()
        let switched = try await store.setCalendarEnabled(id: calendarID, enabled: enabled, now: started)
        let draft = enabled
            ? try CalendarSyncJobHandler.draft(accountID: calendar.accountID, priority: JobPriority.interactive)
            : try LinksAfterSyncJobHandler.draft(since: started.addingTimeInterval(-1))
        let job = try await queue.enqueue(draft).job.id
        return CalendarSwitchResult(calendar: Self.summary(switched), job: job)
    }

    /// A calendar as clients see it.
    static func summary(_ calendar: CalendarInfo) -> CalendarSummary {
        CalendarSummary(
            id: calendar.id, account: calendar.accountID, remoteID: calendar.remoteID, name: calendar.name, color: calendar.color,
            timeZone: calendar.timeZone, events: calendar.eventCount, enabled: calendar.isEnabled)
    }
}
