import Foundation
import StenoCore

/// Brings one calendar of a mailbox up to date with a calendarView delta round.
///
/// With a stored delta link whose window still covers the configured one: one round from it
/// (usually one request). Otherwise — first sync, the window slid past the round's end, or
/// Graph answered 410 / `syncStateNotFound` / `resyncRequired` — a full round over the window
/// (plus some slack ahead, so the window can slide for days before the next full round):
/// every event is listed again and only mirrored events that are no longer listed are
/// tombstoned, so links to events that still exist are untouched.
///
/// Pages are applied as incremental change sets without a state; the last change set
/// carries the removals and the new delta link, so a link is never saved before the events
/// it covers (a crash mid-round resumes from the previous link).
struct GraphCalendarSync {
    let client: GraphClient
    let calendar: GraphCalendar
    let graphURL: URL
    let stored: GraphCalendarState?
    /// Whether the mirror already knows this calendar.
    let isKnown: Bool
    let context: CalendarSyncContext
    let options: GraphProvider.Options

    /// What the calendar's sync did.
    struct Outcome {
        var changes = MirrorChangeSummary()
        var fullSync = false
        var warnings: [String] = []
    }

    /// The round was refused: its delta state is gone.
    struct ResyncRequired: Error {
        var reason: String
    }

    var descriptor: CalendarDescriptor {
        CalendarDescriptor(remoteID: calendar.remoteID, name: calendar.name, color: calendar.color)
    }

    /// The mailbox whose request slots the calendar's requests take.
    var mailbox: GraphMailbox { calendar.mailbox }

    var preferHeader: (String, String) {
        ("Prefer", "odata.maxpagesize=\(options.pageSize), outlook.timezone=\"UTC\", IdType=\"ImmutableId\"")
    }

    func run() async throws -> Outcome {
        if isKnown, let stored, let link = stored.deltaLink, stored.covers(context.window), let url = URL(string: link) {
            do {
                return try await round(from: url, full: false, comparesWithMirror: false, window: stored)
            } catch let refusal as ResyncRequired {
                context.logger.info(
                    "delta state refused; syncing the calendar in full", metadata: ["calendar": "\(calendar.remoteID)", "reason": "\(refusal.reason)"])
            }
        }
        let window = DateInterval(
            start: context.window.start, end: context.window.end.addingTimeInterval(Double(options.windowSlackDays) * 86_400))
        let state = GraphCalendarState(deltaLink: nil, window: window)
        do {
            // A calendar the mirror has never held has no events to compare the listing with.
            return try await round(from: initialURL(window), full: true, comparesWithMirror: isKnown, window: state)
        } catch let refusal as ResyncRequired {
            // A skip token may expire during a long first round: start it once more (the
            // first attempt may have mirrored events since gone).
            context.logger.info("delta round restarted", metadata: ["calendar": "\(calendar.remoteID)", "reason": "\(refusal.reason)"])
            do {
                return try await round(from: initialURL(window), full: true, comparesWithMirror: true, window: state)
            } catch let again as ResyncRequired {
                throw CalendarSyncError.badSource("Microsoft Graph refused a fresh delta round for \(calendar.name): \(again.reason)")
            }
        }
    }

    /// `{graph}/{calendar path}/calendarView/delta?startDateTime=…&endDateTime=…`.
    func initialURL(_ window: DateInterval) throws -> URL {
        var components = URLComponents(url: graphURL.appendingPathComponent(calendar.path + "/calendarView/delta"), resolvingAgainstBaseURL: false)
        components?.queryItems = [
            URLQueryItem(name: "startDateTime", value: graphUTCText(window.start)),
            URLQueryItem(name: "endDateTime", value: graphUTCText(window.end)),
        ]
        guard let url = components?.url else { throw CalendarSyncError.badSource("cannot build the delta URL for \(calendar.path)") }
        return url
    }

    /// Follows `@odata.nextLink` to the `@odata.deltaLink`, applying what the pages hold.
    ///
    /// A full round that `comparesWithMirror` tombstones the mirrored events of the window it
    /// did not list.
    private func round(from start: URL, full: Bool, comparesWithMirror: Bool, window: GraphCalendarState) async throws -> Outcome {
        var outcome = Outcome()
        outcome.fullSync = full
        var url = start
        var pending: [String: ResourceUpdate] = [:]
        var removed = Set<String>()
        var seen = Set<String>()
        var pages = 0
        while true {
            pages += 1
            guard pages <= options.maximumPagesPerRound else {
                throw CalendarSyncError.malformedResponse("Microsoft Graph sent more than \(options.maximumPagesPerRound) pages for \(calendar.name)")
            }
            let response = try await client.get(url, mailbox: mailbox.remoteID, headers: [preferHeader])
            guard response.isSuccess else {
                let error = GraphError(response)
                if error.requiresResync { throw ResyncRequired(reason: error.description) }
                if response.status == 404 {
                    throw CalendarSyncError.badSource("Microsoft Graph has no calendar \(calendar.name) (\(error))")
                }
                throw CalendarSyncError.badSource("GET \(url.path) for \(calendar.name) failed: \(error)")
            }
            let page: GraphPage
            do {
                page = try GraphPageReader.page(response.body)
            } catch {
                throw CalendarSyncError.malformedResponse("GET \(url.path): not a Graph collection page (\(error))")
            }
            for event in page.value {
                if event.removed != nil {
                    pending[event.id] = nil
                    if comparesWithMirror { seen.remove(event.id) }
                    removed.insert(event.id)
                    continue
                }
                // calendarView lists occurrences, never masters; skip one should it appear.
                if event.type == "seriesMaster" { continue }
                do {
                    let occurrence = try event.mirrored()
                    pending[event.id] = ResourceUpdate(resource: event.id, etag: event.changeKey, occurrences: [occurrence])
                    if !removed.isEmpty { removed.remove(event.id) }
                    if comparesWithMirror { seen.insert(event.id) }
                } catch {
                    outcome.warnings.append(error.description)
                }
            }
            if pending.count >= options.resourcesPerChangeSet {
                outcome.changes.add(try await context.mirror.apply(
                    CalendarChangeSet(calendar: descriptor, scope: .incremental, updatedResources: sorted(pending), keepsResourceTags: false)))
                pending.removeAll(keepingCapacity: true)
            }
            if let next = page.nextLink {
                guard let nextURL = URL(string: next) else { throw CalendarSyncError.malformedResponse("unreadable @odata.nextLink \(next)") }
                url = nextURL
                continue
            }
            guard let deltaLink = page.deltaLink else {
                throw CalendarSyncError.malformedResponse("GET \(url.path): a page with neither @odata.nextLink nor @odata.deltaLink")
            }
            if comparesWithMirror {
                // Events mirrored only outside the round's window are not in its listing: kept.
                let listable = try await context.mirror.resources(calendarRemoteID: calendar.remoteID, overlapping: window.window)
                removed.formUnion(listable.subtracting(seen))
            }
            var state = window
            state.deltaLink = deltaLink
            outcome.changes.add(try await context.mirror.apply(
                CalendarChangeSet(
                    calendar: descriptor, scope: .incremental, updatedResources: sorted(pending), removedResources: removed.sorted(),
                    syncState: CalDAVStateCoding.encode(state), keepsResourceTags: false)))
            return outcome
        }
    }

    private func sorted(_ pending: [String: ResourceUpdate]) -> [ResourceUpdate] {
        pending.keys.sorted().compactMap { pending[$0] }
    }
}
