import Foundation

extension StenoMethods {
    // MARK: calendars.enable, calendars.disable

    /// Stops a calendar from counting (its owner or an admin): it is no longer mirrored, its
    /// events stop being candidates, and links to them are revalidated as gone (orphaned,
    /// their cached copies kept). Queues that revalidation.
    public static let calendarsDisable = RPCMethodDescriptor<CalendarIDParams, CalendarSwitchResult>("calendars.disable")
    /// Makes a disabled calendar count again (its owner or an admin): its sync state is
    /// cleared and a sync of its account queued, which mirrors it from the start.
    public static let calendarsEnable = RPCMethodDescriptor<CalendarIDParams, CalendarSwitchResult>("calendars.enable")
}

/// Params of `calendars.enable` and `calendars.disable`.
public struct CalendarIDParams: Codable, Sendable, Hashable {
    /// The calendar (an id from `calendars.list`).
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

/// The answer of `calendars.enable` and `calendars.disable`.
public struct CalendarSwitchResult: Codable, Sendable, Hashable {
    /// The calendar as it is now.
    public var calendar: CalendarSummary
    /// The job queued: the links' revalidation (disable) or the account's sync (enable); nil
    /// when nothing changed.
    public var job: Int64?

    public init(calendar: CalendarSummary, job: Int64?) {
        self.calendar = calendar
        self.job = job
    }
}
