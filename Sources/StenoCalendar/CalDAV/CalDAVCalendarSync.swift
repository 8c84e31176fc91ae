import Foundation
import StenoCore

/// Brings one calendar's mirror up to date, choosing the cheapest way the server allows:
///
/// 1. nothing changed (CTag as stored, for accounts without sync-collection) → no request;
/// 2. a stored sync token → sync-collection since it, calendar-multiget of the changes;
/// 3. no token, or one the server rejects → the collection's sync token and a calendar-query
///    of the window's time range (a first sync downloads the window, not the calendar's
///    history), fetching only members whose ETag differs from the mirror's; servers without
///    either get sync-collection from an empty token;
/// 4. the window slid → as 2, plus a calendar-query of the part the window gained: those
///    objects are expanded again (a series gains its occurrences at the window's far end);
/// 5. no sync-collection → PROPFIND of every member's ETag, compared with the mirror's.
///
/// Objects are fetched in chunks of ``CalDAVProvider/Options/multigetChunkSize`` hrefs, a few
/// requests in flight, and applied as incremental change sets of about
/// ``CalDAVProvider/Options/resourcesPerChangeSet`` resources without a sync state; the last
/// change set carries the rest, the deletions and the new state, so a state is never saved
/// before the data it covers.
struct CalDAVCalendarSync {
    let client: CalDAVClient
    let collection: CalDAVCollection
    let capabilities: CalDAVCapabilities
    let stored: CalDAVCalendarState?
    /// Whether the mirror already knows this calendar.
    let isKnown: Bool
    let context: CalendarSyncContext
    let options: CalDAVProvider.Options

    /// What the calendar's sync did.
    struct Outcome {
        var changes = MirrorChangeSummary()
        var fullSync = false
        var warnings: [String] = []
        /// Sync-collection turned out to be unavailable: later syncs should not try it.
        var syncCollectionUnsupported = false
    }

    var descriptor: CalendarDescriptor {
        CalendarDescriptor(
            remoteID: collection.href.path, name: collection.name, color: collection.color, timeZone: collection.timeZoneID)
    }

    var windowDay: String { CalDAVStateCoding.day(of: context.window.start) }

    /// Whether series must be expanded again because the window slid since the last expansion.
    var windowSlid: Bool {
        guard let day = stored?.windowDay, let days = CalDAVStateCoding.days(from: day, to: windowDay) else { return true }
        return abs(days) >= options.reexpandAfterDays
    }

    /// Whether time-range listings may be used for this calendar.
    var listsByTimeRange: Bool { options.listsByTimeRange && capabilities.calendarQuery }

    func run() async throws -> Outcome {
        let fresh = !isKnown || stored == nil || windowSlid
        if !fresh, let stored {
            if let ctag = collection.ctag, ctag == stored.ctag { return Outcome() }
        }
        var outcome = Outcome()
        if capabilities.syncCollection, collection.reports.map({ $0.contains("sync-collection") }) ?? true {
            let reader = CalDAVSyncCollection(
                client: client, collection: collection.href.url, collectionPath: collection.href.path, limit: options.syncCollectionLimit)
            // A slid window needs the objects of the part it gained: listed by time when the
            // server can, otherwise every object again.
            if isKnown, let stored, let token = stored.syncToken, !windowSlid || listsByTimeRange {
                do {
                    let list = try await reader.changes(since: token)
                    var fetch = list.changed
                    if windowSlid {
                        let gained = try await timeRange.members(overlapping: gainedParts(since: stored))
                        let listed = Set(fetch.map(\.path))
                        fetch += gained.hrefs.filter { !listed.contains($0.path) && !list.removed.contains($0.path) }
                    }
                    (outcome.changes, outcome.warnings) = try await apply(
                        fetch: fetch, removed: list.removed.sorted(), token: list.token, reexpanded: windowSlid)
                    return outcome
                } catch let refusal as SyncCollectionRefusal {
                    if case .unsupported = refusal { outcome.syncCollectionUnsupported = true }
                    context.logger.info(
                        "sync token refused; syncing the calendar in full", metadata: ["calendar": "\(collection.href.path)"])
                } catch is TimeRangeQueryRefusal {
                    context.logger.info(
                        "time-range listing refused; syncing the calendar in full", metadata: ["calendar": "\(collection.href.path)"])
                }
            }
            if !outcome.syncCollectionUnsupported {
                if listsByTimeRange, let listed = try await windowListing() {
                    outcome.fullSync = true
                    (outcome.changes, outcome.warnings) = try await fullApply(
                        listed: listed.hrefs, etags: listed.etags, token: listed.token, listedWindowOnly: true)
                    return outcome
                }
                do {
                    let list = try await reader.changes(since: "")
                    outcome.fullSync = true
                    (outcome.changes, outcome.warnings) = try await fullApply(listed: list.changed, etags: list.etags, token: list.token)
                    return outcome
                } catch is SyncCollectionRefusal {
                    outcome.syncCollectionUnsupported = true
                }
            }
        }
        // Fallback: compare ETags.
        let listing = try await memberETags()
        outcome.fullSync = fresh
        (outcome.changes, outcome.warnings) = try await fullApply(listed: listing.hrefs, etags: listing.etags, token: nil)
        return outcome
    }

    var timeRange: CalDAVTimeRangeQuery {
        CalDAVTimeRangeQuery(client: client, collection: collection.href.url, collectionPath: collection.href.path)
    }

    /// The parts of the window not covered by the one of the last expansion.
    func gainedParts(since stored: CalDAVCalendarState) -> [DateInterval] {
        guard let previous = stored.expandedWindow(length: context.window.duration) else { return [context.window] }
        return TimeSpanSet([context.window]).subtracting(TimeSpanSet([previous])).spans
    }

    /// The collection's sync token, then the objects with an occurrence in the window: a
    /// listing of the window instead of the collection's whole history. Nil when the server
    /// gives no token as a property or refuses the query (the caller lists everything).
    private func windowListing() async throws -> (hrefs: [DAVHref], etags: [String: String?], token: String)? {
        guard let token = try await timeRange.currentSyncToken() else { return nil }
        do {
            let listed = try await timeRange.members(overlapping: [context.window])
            return (listed.hrefs, listed.etags, token)
        } catch is TimeRangeQueryRefusal {
            context.logger.info("time-range listing refused; listing the whole calendar", metadata: ["calendar": "\(collection.href.path)"])
            return nil
        }
    }

    /// A full listing: fetch what differs from the mirror (everything when fresh), remove what
    /// the mirror has and the server no longer lists. A listing of the window only
    /// (`listedWindowOnly`) judges only the resources the mirror has in the window: those
    /// mirrored only outside it were not asked about.
    private func fullApply(listed: [DAVHref], etags: [String: String?], token: String?, listedWindowOnly: Bool = false) async throws
        -> (MirrorChangeSummary, [String])
    {
        let mirrored = try await context.mirror.resourceTags(calendarRemoteID: collection.href.path)
        let refetchAll = !isKnown || stored == nil || windowSlid
        let toFetch = refetchAll ? listed : listed.filter { href in
            guard let known = mirrored[href.path], let etag = etags[href.path] ?? nil else { return true }
            return known != etag
        }
        let judged = listedWindowOnly
            ? Array(try await context.mirror.resources(calendarRemoteID: collection.href.path, overlapping: context.window))
            : Array(mirrored.keys)
        let removed = judged.filter { etags[$0] == nil }.sorted()
        return try await apply(fetch: toFetch, removed: removed, token: token, reexpanded: refetchAll)
    }

    /// Fetches `hrefs` in chunks, applies each, then applies the removals with the new state.
    /// `reexpanded`: every object with an occurrence in the window was fetched and expanded
    /// in it, so the state records this window; otherwise it keeps the window of the last
    /// expansion (objects not fetched now are expanded only that far).
    private func apply(fetch hrefs: [DAVHref], removed: [String], token: String?, reexpanded: Bool) async throws
        -> (MirrorChangeSummary, [String])
    {
        var summary = MirrorChangeSummary()
        var gone = removed
        let fetcher = CalDAVObjectFetcher(
            client: client, collection: collection.href.url, window: context.window,
            defaultTimeZone: collection.timeZoneID.flatMap(TimeZone.init(identifier:)) ?? options.defaultTimeZone)
        let chunkSize = max(1, options.multigetChunkSize)
        let chunks = stride(from: 0, to: hrefs.count, by: chunkSize).map { Array(hrefs[$0..<min($0 + chunkSize, hrefs.count)]) }
        var warnings: [String] = []
        var pending: [ResourceUpdate] = []
        // The store writes one change set while the next chunks are fetched and parsed: the
        // server is never idle waiting for a transaction. At most one write runs at a time,
        // in order, so change sets still land in the order they were gathered.
        var writing: Task<MirrorChangeSummary, any Error>?
        let mirror = context.mirror
        do {
            try await withThrowingTaskGroup(of: CalDAVFetchedChunk.self) { group in
                var next = 0
                let inFlight = max(1, options.concurrentRequests)
                while next < chunks.count && next < inFlight {
                    let chunk = chunks[next]
                    group.addTask { try await fetcher.fetch(chunk) }
                    next += 1
                }
                while let fetched = try await group.next() {
                    if next < chunks.count {
                        let chunk = chunks[next]
                        group.addTask { try await fetcher.fetch(chunk) }
                        next += 1
                    }
                    gone += fetched.removed
                    warnings += fetched.warnings
                    pending += fetched.updates
                    if pending.count >= options.resourcesPerChangeSet {
                        if let previous = writing { summary.add(try await previous.value) }
                        let changes = CalendarChangeSet(
                            calendar: descriptor, scope: .incremental, updatedResources: pending, window: context.window)
                        writing = Task { try await mirror.apply(changes) }
                        pending.removeAll(keepingCapacity: true)
                    }
                }
            }
            if let previous = writing { summary.add(try await previous.value) }
        } catch {
            // No write may outlive the sync that started it.
            _ = try? await writing?.value
            throw error
        }
        for warning in warnings.prefix(20) {
            context.logger.warning("calendar object skipped", metadata: ["calendar": "\(collection.href.path)", "reason": "\(warning)"])
        }
        var state = CalDAVCalendarState(
            syncToken: token, ctag: collection.ctag, windowDay: windowDay, windowEndDay: CalDAVStateCoding.day(of: context.window.end))
        if !reexpanded, let stored, stored.windowDay != nil {
            (state.windowDay, state.windowEndDay) = (stored.windowDay, stored.windowEndDay)
        }
        summary.add(try await context.mirror.apply(
            CalendarChangeSet(
                calendar: descriptor, scope: .incremental, updatedResources: pending, removedResources: gone,
                syncState: CalDAVStateCoding.encode(state), window: context.window)))
        return (summary, warnings)
    }

    /// PROPFIND Depth 1: every member object's href and ETag.
    private func memberETags() async throws -> (hrefs: [DAVHref], etags: [String: String?]) {
        let multistatus = try await client.multistatus(
            "PROPFIND", collection.href.url, depth: "1", body: CalDAVRequests.memberETags)
        var hrefs: [DAVHref] = []
        var etags: [String: String?] = [:]
        for entry in multistatus.responses where !entry.href.isCollection && (200..<300).contains(entry.effectiveStatus) {
            if entry.property(.resourceType)?.child(.collection) != nil { continue }
            if etags.updateValue(entry.text(.getETag), forKey: entry.href.path) == nil { hrefs.append(entry.href) }
        }
        return (hrefs, etags)
    }
}
