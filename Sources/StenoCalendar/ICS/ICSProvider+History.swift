import Foundation
import StenoCore

/// History on demand from iCalendar files: the source holds every event at any date, so it is
/// read once (one GET for a URL) and expanded within each span asked for.
extension ICSProvider: CalendarHistorySource {
    public func fetchHistory(_ spans: [String: [DateInterval]], context: CalendarSyncContext) async throws -> CalendarSyncReport {
        var report = CalendarSyncReport()
        guard let setting = context.account.settings["source"] else { return report }
        let source = try ICSSource(setting)
        guard let stored = try await context.mirror.calendars().first(where: { $0.remoteID == source.description }) else {
            report.warnings.append("\(CredentialRedaction.redactedURL(source.description)) was never synced")
            return report
        }
        let spans = TimeSpanSet(spans[stored.remoteID] ?? []).spans
        guard stored.isEnabled, !spans.isEmpty else { return report }
        report.calendars = 1
        report.historyCalendars = [stored.remoteID]
        var documents: [(prefix: String, text: String)] = []
        switch source {
        case .file(let path), .folder(let path):
            if case .folder = source { try context.fileAccess.check(path, isFolder: true) }
            let isFolder: Bool
            if case .folder = source { isFolder = true } else { isFolder = false }
            for file in try Self.calendarFiles(source: source) {
                let prefix = isFolder ? String(file.dropFirst(path.count).drop { $0 == "/" }) + "/" : ""
                documents.append((prefix, String(decoding: try context.fileAccess.read(file, limit: maximumFileBytes), as: UTF8.self)))
            }
        case .url(let url):
            let response = try await fetch(url, previous: nil, context: context)
            report.requests = 1
            report.bytesReceived = response?.body.count ?? 0
            documents = response.map { [("", $0.text)] } ?? []
        }
        var calendars: [(prefix: String, calendar: ICalendar)] = []
        for document in documents {
            // A document the regular sync would refuse is reported there; history skips it.
            guard let calendar = try? ICalendar.parse(document.text), !calendar.isTruncated else {
                report.warnings.append("\(document.prefix.isEmpty ? source.description : document.prefix) is not valid iCalendar: skipped")
                continue
            }
            calendars.append((document.prefix, calendar))
        }
        for span in spans {
            var resources: [String: [EventOccurrence]] = [:]
            for (prefix, calendar) in calendars {
                Self.addOccurrences(of: calendar, in: span, prefix: prefix, defaultTimeZone: defaultTimeZone, to: &resources)
            }
            guard !resources.isEmpty else { continue }
            let changes = CalendarChangeSet(
                calendar: stored.descriptor, scope: .incremental,
                updatedResources: resources.keys.sorted().map { ResourceUpdate(resource: $0, occurrences: resources[$0] ?? []) }, window: span)
            report.changes.add(try await context.mirror.apply(changes))
        }
        return report
    }
}
