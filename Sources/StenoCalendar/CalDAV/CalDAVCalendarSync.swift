import Foundation
import StenoCore

/// Brings one calendar's mirror up to date, choosing the cheapest way the server allows:
///
/// 1. nothing changed (CTag as stored, for accounts without sync-collection) → no request;
/// 2. a stored sync token → sync-collection since it, calendar-multiget of the changes;
/// 3. no token, or one the server rejects → sync-collection from an empty token, fetching
///    only members whose ETag differs from the mirror's (all of them when the window slid);
/// 4. no sync-collection → PROPFIND of every member's ETag, compared with the mirror's.
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

    func run() async throws -> Outcome {
        let fresh = !isKnown || stored == nil || windowSlid
        if !fresh, let stored {
            if let ctag = collection.ctag, ctag == stored.ctag { return Outcome() }
        }
        var outcome = Outcome()
        if capabilities.syncCollection, collection.reports.map({ $0.contains("sync-collection") }) ?? true {
            let reader = CalDAVSyncCollection(
                client: client, collection: collection.href.url, collectionPath: collection.href.path, limit: options.syncCollectionLimit)
            if !fresh, let token = stored?.syncToken {
                do {
                    let list = try await reader.changes(since: token)
                    (outcome.changes, outcome.warnings) = try await apply(
                        fetch: list.changed, removed: list.removed.sorted(), token: list.token)
                    return outcome
                } catch let refusal as SyncCollectionRefusal {
                    if case .unsupported = refusal { outcome.syncCollectionUnsupported = true }
                    context.logger.info(
                        "sync token refused; syncing the calendar in full", metadata: ["calendar": "\(collection.href.path)"])
                }
            }
            if !outcome.syncCollectionUnsupported {
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

    /// A full listing: fetch what differs from the mirror (everything when fresh), remove what
    /// the mirror has and the server no longer lists.
    private func fullApply(listed: [DAVHref], etags: [String: String?], token: String?) async throws
        -> (MirrorChangeSummary, [String])
    {
        let mirrored = try await context.mirror.resourceTags(calendarRemoteID: collection.href.path)
        let refetchAll = !isKnown || stored == nil || windowSlid
        let toFetch = refetchAll ? listed : listed.filter { href in
            guard let known = mirrored[href.path], let etag = etags[href.path] ?? nil else { return true }
            return known != etag
        }
        let removed = mirrored.keys.filter { etags[$0] == nil }.sorted()
        return try await apply(fetch: toFetch, removed: removed, token: token)
    }

    /// Fetches `hrefs` in chunks, applies each, then applies the removals with the new state.
    private func apply(fetch hrefs: [DAVHref], removed: [String], token: String?) async throws -> (MirrorChangeSummary, [String]) {
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
        let state = CalDAVCalendarState(syncToken: token, ctag: collection.ctag, windowDay: windowDay)
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
