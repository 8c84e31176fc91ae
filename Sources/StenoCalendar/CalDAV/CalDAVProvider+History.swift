import Foundation
import StenoCore

/// History on demand from a CalDAV server: per mirrored calendar and span, a calendar-query of
/// the span's time range, then calendar-multiget of the objects listed, expanded within the span.
extension CalDAVProvider: CalendarHistorySource {
    public func fetchHistory(_ spans: [DateInterval], context: CalendarSyncContext) async throws -> CalendarSyncReport {
        var report = CalendarSyncReport()
        let spans = TimeSpanSet(spans).spans
        guard !spans.isEmpty else { return report }
        guard let account = CalDAVStateCoding.decode(CalDAVAccountState.self, from: context.account.syncState),
            let home = URL(string: account.homeURL)
        else {
            report.warnings.append("the account was never synced: its calendars are not known yet")
            return report
        }
        if let capabilities = CalDAVStateCoding.decode(CalDAVCapabilities.self, from: context.account.capabilities), !capabilities.calendarQuery {
            report.warnings.append("the server does not support calendar-query: history cannot be asked for by time")
            return report
        }
        let client = CalDAVClient(
            account: context.account, credentials: context.credentials, transport: transport,
            save: { [mirror = context.mirror] in try await mirror.saveCredentials($0) })
        let calendars = try await context.mirror.calendars()
        report.calendars = calendars.count
        for calendar in calendars {
            guard let url = URL(string: calendar.remoteID, relativeTo: home)?.absoluteURL else { continue }
            let query = CalDAVTimeRangeQuery(client: client, collection: url, collectionPath: calendar.remoteID)
            let zone = calendar.timeZone.flatMap(TimeZone.init(identifier:)) ?? options.defaultTimeZone
            for span in spans {
                let listed: [DAVHref]
                do {
                    listed = try await query.members(overlapping: [span]).hrefs
                } catch let refusal as TimeRangeQueryRefusal {
                    report.warnings.append("\(calendar.name): calendar-query refused (HTTP \(refusal.status))")
                    break
                }
                let fetcher = CalDAVObjectFetcher(client: client, collection: url, window: span, defaultTimeZone: zone)
                var changes = CalendarChangeSet(calendar: calendar.descriptor, scope: .incremental, window: span)
                let chunkSize = max(1, options.multigetChunkSize)
                for start in stride(from: 0, to: listed.count, by: chunkSize) {
                    let chunk = try await fetcher.fetch(Array(listed[start..<min(start + chunkSize, listed.count)]))
                    changes.updatedResources += chunk.updates
                    changes.removedResources += chunk.removed
                    report.warnings += chunk.warnings.prefix(20).map { "\(calendar.name): \($0)" }
                }
                if !changes.updatedResources.isEmpty || !changes.removedResources.isEmpty {
                    report.changes.add(try await context.mirror.apply(changes))
                }
            }
        }
        let totals = await client.totals()
        report.requests = totals.requests
        report.bytesReceived = totals.bytes
        return report
    }
}
