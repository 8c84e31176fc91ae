import Foundation
import StenoCore

/// A provider that can mirror spans of an account's history on demand: the events of
/// recordings dated outside the mirrored window, which syncs never look at.
public protocol CalendarHistorySource: Sendable {
    /// Mirrors the events of the account's calendars with an occurrence in each of `spans`,
    /// each expanded within its span only (occurrences elsewhere are left as the mirror holds
    /// them). Sync states are not touched: a history fetch is not a sync.
    ///
    /// - Returns: the requests made, bytes received and changes applied.
    /// - Throws: ``CalendarSyncError`` when the account cannot be read.
    func fetchHistory(_ spans: [DateInterval], context: CalendarSyncContext) async throws -> CalendarSyncReport
}

extension CalendarHistorySource {
    /// The spans to ask a server for, one request each, in time order: as the planner cut
    /// them. Joining spans that touch would make one request longer than the planner allows
    /// (servers refuse or page through very long time ranges).
    public static func requestSpans(_ spans: [DateInterval]) -> [DateInterval] {
        spans.filter { $0.duration > 0 }.sorted { $0.start < $1.start }
    }
}
