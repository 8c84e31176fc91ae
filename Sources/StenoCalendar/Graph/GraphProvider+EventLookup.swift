import Foundation
import StenoCore

extension GraphProvider: CalendarEventLookup {
    /// Reads events by id (`GET /{mailbox}/events/{id}`, at most four at once per mailbox):
    /// for revalidating links to events outside the mirrored window, which the delta rounds no
    /// longer report on.
    ///
    /// An event whose request fails on its own (an unreadable answer, a server error) is left
    /// out of the result; credentials refused or throttling that outlasts the retry policy
    /// end the whole lookup.
    public func lookUpEvents(_ keys: [CalendarEventKey], context: CalendarAccountContext) async throws
        -> [CalendarEventKey: CalendarEventLookupResult]
    {
        let setup = try GraphAccountSetup(account: context.account)
        let client = makeClient(setup: setup, context: context)
        let unique = Array(Set(keys))
        return try await withThrowingTaskGroup(of: (CalendarEventKey, CalendarEventLookupResult?).self) { group in
            var results: [CalendarEventKey: CalendarEventLookupResult] = [:]
            var next = 0
            func addNext() {
                let key = unique[next]
                next += 1
                group.addTask {
                    do {
                        return (key, try await lookUp(key, client: client, setup: setup))
                    } catch let error as CalendarSyncError {
                        switch error {
                        case .needsCredentials, .retryLater: throw error
                        case .badSource, .malformedResponse:
                            context.logger.warning("event lookup failed", metadata: ["event": "\(key.resource)", "error": "\(error)"])
                            return (key, nil)
                        }
                    }
                }
            }
            // The client's gate holds each mailbox to four requests; a few more queued keep it busy.
            while next < unique.count && next < 8 { addNext() }
            while let (key, result) = try await group.next() {
                results[key] = result
                if next < unique.count { addNext() }
            }
            return results
        }
    }

    private func lookUp(_ key: CalendarEventKey, client: GraphClient, setup: GraphAccountSetup) async throws -> CalendarEventLookupResult {
        let url = eventURL(key.resource, mailbox: key.calendarRemoteID, setup: setup)
        let response = try await client.get(url, mailbox: key.calendarRemoteID, headers: [Self.preferUTC])
        if response.status == 404 || response.status == 410 { return .gone }
        guard response.isSuccess else {
            throw CalendarSyncError.badSource("GET \(url.path) failed: \(GraphError(response))")
        }
        do {
            let event = try GraphPageReader.event(response.body)
            return .found(try event.mirrored(), etag: event.changeKey)
        } catch {
            throw CalendarSyncError.malformedResponse("GET \(url.path): not a readable event (\(error))")
        }
    }
}

extension GraphProvider {
    /// Decodes and maps delta pages as a sync does, without a server or a store: the share
    /// of a sync's CPU time that is Steno's reading (for `steno-bench graph`).
    ///
    /// - Returns: the events mapped.
    public static func readPagesForBenchmark(_ pages: [Data]) throws -> Int {
        var mapped = 0
        for body in pages {
            let page = try GraphPageReader.page(body)
            for event in page.value where event.removed == nil {
                _ = try event.mirrored()
                mapped += 1
            }
        }
        return mapped
    }
}
