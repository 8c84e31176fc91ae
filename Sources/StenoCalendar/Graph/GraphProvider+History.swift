import Foundation
import StenoCore

/// History on demand from Microsoft Graph: per enabled calendar the account mirrors and per
/// span asked for it, `GET {calendar}/calendarView?startDateTime&endDateTime` paged through
/// `@odata.nextLink` — occurrences, exceptions and single events of the span, series expanded
/// by Graph for that span only. Throttling is waited out as in a sync (the request gate,
/// `Retry-After`); beyond the policy the fetch ends with
/// ``CalendarSyncError/retryLater(after:reason:)`` for the caller to wait.
extension GraphProvider: CalendarHistorySource {
    public func fetchHistory(_ spans: [String: [DateInterval]], context: CalendarSyncContext) async throws -> CalendarSyncReport {
        var report = CalendarSyncReport()
        let spans = spans.mapValues(Self.requestSpans).filter { !$0.value.isEmpty }
        guard !spans.isEmpty else { return report }
        let setup = try GraphAccountSetup(account: context.account)
        let client = makeClient(setup: setup, context: context)
        // The calendars the syncs found, as they left them: a calendar listing is a sync's job.
        let known = try await context.mirror.calendars()
        guard !known.isEmpty else {
            report.warnings.append("the account was never synced: its calendars are not known yet")
            return report
        }
        let calendars = known.filter { $0.isEnabled && spans[$0.remoteID] != nil }
        guard !calendars.isEmpty else { return report }
        report.calendars = calendars.count
        report.historyCalendars = Set(calendars.map(\.remoteID))
        // One task per mailbox, its calendars one after the other (they share its request slots).
        let byMailbox = Dictionary(grouping: calendars) { GraphMailbox.path(ofCalendar: $0.remoteID) }.values.map { $0 }
        let reports = try await withThrowingTaskGroup(of: CalendarSyncReport.self) { group in
            var next = 0
            var done: [CalendarSyncReport] = []
            func addNext() {
                let mailboxCalendars = byMailbox[next]
                next += 1
                group.addTask {
                    var mailboxReport = CalendarSyncReport()
                    for calendar in mailboxCalendars {
                        let reader = GraphSpanReader(client: client, calendar: calendar, graphURL: setup.endpoints.graphURL, options: options)
                        do {
                            for span in spans[calendar.remoteID] ?? [] {
                                let (changes, warnings) = try await reader.read(span)
                                mailboxReport.warnings += warnings.prefix(20).map { "\(calendar.name): \($0)" }
                                guard !changes.updatedResources.isEmpty else { continue }
                                mailboxReport.changes.add(try await context.mirror.apply(changes))
                            }
                        } catch let error as CalendarSyncError {
                            switch error {
                            case .needsCredentials, .retryLater: throw error
                            case .badSource, .malformedResponse:
                                // One unreadable calendar (a share withdrawn) does not stop the others.
                                mailboxReport.warnings.append("\(calendar.name): history not read: \(error)")
                            }
                        }
                    }
                    return mailboxReport
                }
            }
            while next < byMailbox.count && next < max(1, options.concurrentMailboxes) { addNext() }
            while let finished = try await group.next() {
                done.append(finished)
                if next < byMailbox.count { addNext() }
            }
            return done
        }
        for mailboxReport in reports {
            report.changes.add(mailboxReport.changes)
            report.warnings += mailboxReport.warnings
        }
        let totals = await client.totals()
        report.requests = totals.requests
        report.bytesReceived = totals.bytes
        return report
    }
}

/// Reads one span of one calendar with `calendarView`, into a change set limited to the span.
struct GraphSpanReader {
    let client: GraphClient
    let calendar: CalendarInfo
    let graphURL: URL
    let options: GraphProvider.Options

    /// The events of `span` as an incremental change set whose window is the span, and the
    /// events that could not be read.
    func read(_ span: DateInterval) async throws -> (CalendarChangeSet, [String]) {
        var components = URLComponents(
            url: graphURL.appendingPathComponent(calendar.remoteID + "/calendarView"), resolvingAgainstBaseURL: false)
        components?.queryItems = [
            URLQueryItem(name: "startDateTime", value: graphUTCText(span.start)),
            URLQueryItem(name: "endDateTime", value: graphUTCText(span.end)),
        ]
        guard var url = components?.url else { throw CalendarSyncError.badSource("cannot build the calendarView URL for \(calendar.remoteID)") }
        let prefer = ("Prefer", "odata.maxpagesize=\(options.pageSize), outlook.timezone=\"UTC\", IdType=\"ImmutableId\"")
        var updates: [String: ResourceUpdate] = [:]
        var warnings: [String] = []
        for _ in 0..<max(1, options.maximumPagesPerRound) {
            let response = try await client.get(url, mailbox: calendar.remoteID, headers: [prefer])
            guard response.isSuccess else {
                throw CalendarSyncError.badSource("GET \(url.path) for \(calendar.name) failed: \(GraphError(response))")
            }
            let page: GraphPage
            do {
                page = try GraphPageReader.page(response.body)
            } catch {
                throw CalendarSyncError.malformedResponse("GET \(url.path): not a Graph collection page (\(error))")
            }
            for event in page.value where event.removed == nil && event.type != "seriesMaster" {
                do {
                    updates[event.id] = ResourceUpdate(resource: event.id, etag: event.changeKey, occurrences: [try event.mirrored()])
                } catch {
                    warnings.append(error.description)
                }
            }
            guard let next = page.nextLink else {
                let changes = CalendarChangeSet(
                    calendar: calendar.descriptor, scope: .incremental, updatedResources: updates.keys.sorted().compactMap { updates[$0] },
                    window: span, keepsResourceTags: false)
                return (changes, warnings)
            }
            guard let nextURL = URL(string: next) else { throw CalendarSyncError.malformedResponse("unreadable @odata.nextLink \(next)") }
            url = nextURL
        }
        throw CalendarSyncError.malformedResponse("Microsoft Graph sent more than \(options.maximumPagesPerRound) pages for \(calendar.name)")
    }
}
