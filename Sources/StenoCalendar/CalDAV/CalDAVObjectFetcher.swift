import Foundation
import StenoCore

/// Calendar objects fetched with calendar-multiget and expanded into the mirrored window.
struct CalDAVFetchedChunk: Sendable {
    var updates: [ResourceUpdate] = []
    /// Hrefs the server reported gone (404) when asked for them.
    var removed: [String] = []
    var warnings: [String] = []
}

/// Fetches calendar objects in bounded calendar-multiget REPORTs and expands each one with
/// the iCalendar engine; the resource key of every occurrence is the object's canonical href.
struct CalDAVObjectFetcher: Sendable {
    let client: CalDAVClient
    let collection: URL
    let window: DateInterval
    let defaultTimeZone: TimeZone

    /// Fetches and expands one chunk of hrefs (one REPORT; halved and retried when the server
    /// refuses a report that large: 400, 413 or 507 to a multiget of several hrefs).
    func fetch(_ hrefs: [DAVHref]) async throws -> CalDAVFetchedChunk {
        let response = try await client.send("REPORT", collection, depth: "1", body: CalDAVRequests.calendarMultiget(hrefs))
        if hrefs.count > 1, [400, 413, 507].contains(response.status) {
            let half = hrefs.count / 2
            var first = try await fetch(Array(hrefs[..<half]))
            let second = try await fetch(Array(hrefs[half...]))
            first.updates += second.updates
            first.removed += second.removed
            first.warnings += second.warnings
            return first
        }
        let multistatus = try CalDAVClient.multistatus(of: response, method: "REPORT", url: collection)
        var chunk = CalDAVFetchedChunk()
        var answered = Set<String>()
        for entry in multistatus.responses {
            let key = entry.href.path
            let status = entry.effectiveStatus
            if status == 404 || status == 410 {
                if answered.insert(key).inserted { chunk.removed.append(key) }
                continue
            }
            guard (200..<300).contains(status), let data = entry.property(.calendarData)?.text, !data.isEmpty else {
                if (200..<300).contains(status) {
                    chunk.warnings.append("\(key): the server sent no calendar-data")
                } else {
                    chunk.warnings.append("\(key): HTTP \(status) in calendar-multiget")
                }
                continue
            }
            guard answered.insert(key).inserted else { continue }
            do {
                chunk.updates.append(try expand(data, resource: key, etag: entry.text(.getETag)))
            } catch {
                chunk.warnings.append("\(key) is not valid iCalendar (skipped): \(error)")
            }
        }
        return chunk
    }

    /// One object's occurrences within the window.
    func expand(_ text: String, resource: String, etag: String?) throws -> ResourceUpdate {
        let calendar = try ICalendar.parse(text)
        let occurrences = calendar.occurrences(in: window, defaultTimeZone: defaultTimeZone)
        return ResourceUpdate(resource: resource, etag: etag, occurrences: occurrences.map { $0.mirrored(resource: resource) })
    }
}
