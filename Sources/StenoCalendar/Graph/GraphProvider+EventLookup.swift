import Foundation
import StenoCore

extension GraphProvider {
    /// What `GET /events/{id}` found.
    public enum EventLookup: Sendable, Hashable {
        case found(EventOccurrence)
        /// 404: the event no longer exists.
        case gone
    }

    /// Reads one event by id: for revalidating a link to an event outside the mirrored
    /// window, which the delta rounds no longer report on. Everything inside the window is
    /// answered from the mirror instead.
    ///
    /// - Parameters:
    ///   - mailboxPath: the calendar's remote id (`me` or `users/{upn}`).
    /// - Throws: ``CalendarSyncError`` as for a sync.
    public func lookUpEvent(id: String, mailboxPath: String, context: CalendarSyncContext) async throws -> EventLookup {
        let setup = try GraphAccountSetup(account: context.account)
        let client = makeClient(setup: setup, context: context)
        let url = setup.endpoints.graphURL.appendingPathComponent(mailboxPath).appendingPathComponent("events")
            .appendingPathComponent(id)
        let response = try await client.get(
            url, mailbox: mailboxPath, headers: [("Prefer", "outlook.timezone=\"UTC\", IdType=\"ImmutableId\"")])
        if response.status == 404 { return .gone }
        guard response.isSuccess else {
            throw CalendarSyncError.badSource("GET \(url.path) failed: \(GraphError(response))")
        }
        do {
            let event = try GraphPageReader.event(response.body)
            return .found(try event.mirrored())
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
