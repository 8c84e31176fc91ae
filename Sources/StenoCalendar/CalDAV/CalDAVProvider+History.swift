import Foundation
import StenoCore

/// History on demand from a CalDAV server: per mirrored calendar and span asked for it, one
/// calendar-query of the span's time range answering with the objects' data — expanded by the
/// server to the span's instances where it supports `expand` (probed by the first history
/// fetch and stored with the account's capabilities), whole otherwise — and expanded here
/// within the span only.
extension CalDAVProvider: CalendarHistorySource {
    public func fetchHistory(_ spans: [String: [DateInterval]], context: CalendarSyncContext) async throws -> CalendarSyncReport {
        var report = CalendarSyncReport()
        let spans = spans.mapValues(Self.requestSpans).filter { !$0.value.isEmpty }
        guard !spans.isEmpty else { return report }
        guard let account = CalDAVStateCoding.decode(CalDAVAccountState.self, from: context.account.syncState),
            let home = URL(string: account.homeURL)
        else {
            report.warnings.append("the account was never synced: its calendars are not known yet")
            return report
        }
        var capabilities = CalDAVStateCoding.decode(CalDAVCapabilities.self, from: context.account.capabilities)
        if let capabilities, !capabilities.calendarQuery {
            report.warnings.append("the server does not support calendar-query: history cannot be asked for by time")
            return report
        }
        let client = CalDAVClient(
            account: context.account, credentials: context.credentials, transport: transport,
            save: { [mirror = context.mirror] in try await mirror.saveCredentials($0) })
        // A disabled calendar does not count: its history would only be thrown away.
        let calendars = try await context.mirror.calendars().filter { $0.isEnabled && spans[$0.remoteID] != nil }
        report.calendars = calendars.count
        report.historyCalendars = Set(calendars.map(\.remoteID))
        for calendar in calendars {
            guard let url = URL(string: calendar.remoteID, relativeTo: home)?.absoluteURL else { continue }
            let zone = calendar.timeZone.flatMap(TimeZone.init(identifier:)) ?? options.defaultTimeZone
            for span in spans[calendar.remoteID] ?? [] {
                let query = HistoryQuery(client: client, collection: url, collectionPath: calendar.remoteID)
                let answer: HistoryQuery.Answer
                do {
                    answer = try await query.objects(in: span, expand: capabilities?.expand ?? true)
                } catch let refusal as TimeRangeQueryRefusal where capabilities?.expand == nil {
                    // The probe: a server refusing `expand` is asked without it, now and from now on.
                    do {
                        answer = try await query.objects(in: span, expand: false)
                    } catch let again as TimeRangeQueryRefusal {
                        report.warnings.append("\(calendar.name): calendar-query refused (HTTP \(again.status), with expand \(refusal.status))")
                        break
                    }
                    capabilities = try await remember(expand: false, in: capabilities, context: context)
                } catch let refusal as TimeRangeQueryRefusal {
                    report.warnings.append("\(calendar.name): calendar-query refused (HTTP \(refusal.status))")
                    break
                }
                if capabilities?.expand == nil, answer.expanded { capabilities = try await remember(expand: true, in: capabilities, context: context) }
                let fetcher = CalDAVObjectFetcher(client: client, collection: url, window: span, defaultTimeZone: zone)
                var changes = CalendarChangeSet(calendar: calendar.descriptor, scope: .incremental, window: span)
                for (href, data, etag) in answer.objects {
                    do {
                        changes.updatedResources.append(try fetcher.expand(data, resource: href, etag: etag))
                    } catch {
                        report.warnings.append("\(calendar.name): \(href) is not valid iCalendar (skipped): \(error)")
                    }
                }
                // A server that lists objects without their data: asked for them by multiget.
                if !answer.withoutData.isEmpty {
                    let chunk = try await fetcher.fetch(answer.withoutData)
                    changes.updatedResources += chunk.updates
                    report.warnings += chunk.warnings.prefix(20).map { "\(calendar.name): \($0)" }
                }
                if !changes.updatedResources.isEmpty {
                    report.changes.add(try await context.mirror.apply(changes))
                }
            }
        }
        let totals = await client.totals()
        report.requests = totals.requests
        report.bytesReceived = totals.bytes
        return report
    }

    /// Stores what the probe learned about `expand` with the account's capabilities.
    private func remember(expand: Bool, in capabilities: CalDAVCapabilities?, context: CalendarSyncContext) async throws -> CalDAVCapabilities? {
        guard var capabilities else { return nil }
        capabilities.expand = expand
        try await context.mirror.saveAccountState(syncState: nil, capabilities: CalDAVStateCoding.encode(capabilities))
        return capabilities
    }
}

/// One calendar-query of a history span with the objects' data.
private struct HistoryQuery {
    let client: CalDAVClient
    let collection: URL
    let collectionPath: String

    struct Answer {
        /// Objects with their data: href, iCalendar text, ETag.
        var objects: [(href: String, data: String, etag: String?)] = []
        /// Objects listed without data.
        var withoutData: [DAVHref] = []
        /// Whether the query asked for `expand` and the server answered it.
        var expanded = false
    }

    /// - Throws: ``TimeRangeQueryRefusal`` when the server refuses the report.
    func objects(in span: DateInterval, expand: Bool) async throws -> Answer {
        let response = try await client.send("REPORT", collection, depth: "1", body: CalDAVRequests.calendarQueryWithData(span, expand: expand))
        if [400, 403, 405, 415, 422, 501].contains(response.status) { throw TimeRangeQueryRefusal(status: response.status) }
        let multistatus = try CalDAVClient.multistatus(of: response, method: "REPORT calendar-query", url: collection)
        var answer = Answer(expanded: expand)
        var seen = Set<String>()
        for entry in multistatus.responses where !entry.href.isCollection && (200..<300).contains(entry.effectiveStatus) {
            if entry.href.asCollection.path == collectionPath { continue }
            guard seen.insert(entry.href.path).inserted else { continue }
            if let data = entry.property(.calendarData)?.text, !data.isEmpty {
                answer.objects.append((entry.href.path, data, entry.text(.getETag)))
            } else {
                answer.withoutData.append(entry.href)
            }
        }
        return answer
    }
}
