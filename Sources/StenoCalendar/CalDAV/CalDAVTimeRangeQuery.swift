import Foundation

/// The server would not answer a time-range listing: the caller lists the whole collection instead.
struct TimeRangeQueryRefusal: Error {
    let status: Int
}

/// Lists a calendar's objects by time (REPORT calendar-query with a `time-range`), so a first
/// sync or a history lookup downloads the objects of the span asked, not the collection's
/// whole history; and reads the collection's current sync token, from which later syncs ask
/// sync-collection for what changed.
struct CalDAVTimeRangeQuery {
    let client: CalDAVClient
    let collection: URL
    let collectionPath: String

    /// The collection's `DAV:sync-token` now; nil when the server does not give it as a property.
    ///
    /// Read before the listing it goes with: whatever changes in between is reported again by
    /// the next sync-collection, never lost.
    func currentSyncToken() async throws -> String? {
        let response = try await client.send("PROPFIND", collection, depth: "0", body: CalDAVRequests.syncTokenProperty)
        guard response.status == 207 else { return nil }
        let multistatus = try CalDAVClient.multistatus(of: response, method: "PROPFIND", url: collection)
        let own = multistatus.responses.first { $0.href.asCollection.path == collectionPath } ?? multistatus.responses.first
        return own?.text(.syncToken)
    }

    /// The objects with an occurrence overlapping any of `ranges` (one REPORT per range), with
    /// their ETags, each href once in the order first listed.
    ///
    /// - Throws: ``TimeRangeQueryRefusal`` when the server refuses the report (400, 403, 405,
    ///   415, 501), ``CalendarSyncError`` for other failures.
    func members(overlapping ranges: [DateInterval]) async throws -> (hrefs: [DAVHref], etags: [String: String?]) {
        var hrefs: [DAVHref] = []
        var etags: [String: String?] = [:]
        for range in ranges where range.duration > 0 {
            let response = try await client.send("REPORT", collection, depth: "1", body: CalDAVRequests.calendarQuery(range))
            if [400, 403, 405, 415, 501].contains(response.status) { throw TimeRangeQueryRefusal(status: response.status) }
            let multistatus = try CalDAVClient.multistatus(of: response, method: "REPORT calendar-query", url: collection)
            for entry in multistatus.responses where !entry.href.isCollection && (200..<300).contains(entry.effectiveStatus) {
                if entry.href.asCollection.path == collectionPath { continue }
                if etags.updateValue(entry.text(.getETag), forKey: entry.href.path) == nil { hrefs.append(entry.href) }
            }
        }
        return (hrefs, etags)
    }
}
