import Foundation
import StenoCore

/// A provider that can mirror spans of an account's history on demand: the events of
/// recordings dated outside the mirrored window, which syncs never look at.
public protocol CalendarHistorySource: Sendable {
    /// Mirrors, for each calendar named in `spans` (by remote ID) that the mirror holds enabled,
    /// the events with an occurrence in each of its spans, each expanded within its span only
    /// (occurrences elsewhere are left as the mirror holds them). Calendars may be asked for
    /// different spans: one enabled or discovered later lacks spans the others have. Sync
    /// states are not touched: a history fetch is not a sync.
    ///
    /// - Returns: the requests made, bytes received and changes applied, and in
    ///   ``CalendarSyncReport/historyCalendars`` the calendars asked.
    /// - Throws: ``CalendarSyncError`` when the account cannot be read.
    func fetchHistory(_ spans: [String: [DateInterval]], context: CalendarSyncContext) async throws -> CalendarSyncReport
}

extension CalendarHistorySource {
    /// Mirrors the events of every enabled calendar of the account with an occurrence in each
    /// of `spans`.
    public func fetchHistory(_ spans: [DateInterval], context: CalendarSyncContext) async throws -> CalendarSyncReport {
        let calendars = try await context.mirror.calendars().filter(\.isEnabled)
        return try await fetchHistory(Dictionary(calendars.map { ($0.remoteID, spans) }) { first, _ in first }, context: context)
    }

    /// The spans to ask a server for, one request each, in time order: as the planner cut
    /// them. Joining spans that touch would make one request longer than the planner allows
    /// (servers refuse or page through very long time ranges).
    public static func requestSpans(_ spans: [DateInterval]) -> [DateInterval] {
        spans.filter { $0.duration > 0 }.sorted { $0.start < $1.start }
    }
}
