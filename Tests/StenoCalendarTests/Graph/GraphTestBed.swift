import Foundation
import Logging
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// A Graph double, a transport and an in-memory mirror, with helpers to sync one account
/// against them and compare the mirror with the double.
final class GraphTestBed: Sendable {
    static let user = "alice@contoso.com"
    static let clientID = "steno-test-client"

    let double: GraphDouble
    let transport = HTTPTransport()
    let mirror = InMemoryCalendarMirror()
    let options: GraphProvider.Options

    init(options: GraphProvider.Options = GraphProvider.Options(pageSize: 10), confidential: [String: String] = [:]) throws {
        double = try GraphDouble(confidentialClients: confidential)
        self.options = options
    }

    func shutdown() async {
        try? await transport.shutdown()
        double.shutdown()
    }

    /// A delegated account (signed in as alice) pointing at the double.
    func delegatedAccount(settings extra: [String: String] = [:]) -> CalendarAccount {
        CalendarAccount(
            id: 1, provider: .graph, ownerID: 1, displayName: Self.user,
            settings: [
                "mode": "delegated", "client_id": Self.clientID, "authority": double.baseURL.absoluteString,
                "graph_url": double.graphURL.absoluteString, "mailbox": Self.user,
            ].merging(extra) { _, new in new })
    }

    /// Syncs an account; credentials are the last ones the mirror saved, else `initial`. The
    /// sync writes `through` a wrapper of the mirror when one is given.
    func sync(
        _ account: CalendarAccount, credentials initial: CalendarCredentials, window: DateInterval = GraphTestBed.window(),
        mappedMailboxes: [String] = [], through wrapper: (any CalendarMirror)? = nil
    ) async throws -> CalendarSyncReport {
        let credentials = await mirror.savedCredentials.last ?? initial
        let context = CalendarSyncContext(
            account: account, credentials: credentials, window: window, mirror: wrapper ?? mirror, logger: Logger(label: "graph-test"))
        return try await GraphProvider(transport: transport, options: options, mappedMailboxes: { mappedMailboxes }).sync(context)
    }

    /// The context of one request outside a sync (a write, a lookup) for the delegated
    /// account; refreshed credentials go to the mirror like a sync's.
    func accountContext(_ account: CalendarAccount? = nil, credentials: CalendarCredentials) -> CalendarAccountContext {
        let mirror = self.mirror
        return CalendarAccountContext(
            account: account ?? delegatedAccount(), credentials: credentials, saveCredentials: { try await mirror.saveCredentials($0) },
            logger: Logger(label: "graph-test"))
    }

    /// The window the tests mirror: 30 days back, 60 ahead of now.
    static func window(shiftedDays: Double = 0) -> DateInterval {
        let now = Date().addingTimeInterval(shiftedDays * 86_400)
        return DateInterval(start: now.addingTimeInterval(-30 * 86_400), end: now.addingTimeInterval(60 * 86_400))
    }

    /// A start `hours` from now, on a whole minute.
    static func start(hours: Double) -> Date {
        Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 + hours * 3600) / 60).rounded(.down) * 60)
    }

    /// Puts `count` single events into a mailbox.
    @discardableResult
    func seed(_ count: Int, mailbox: String = GraphTestBed.user, prefix: String = "ev") -> [GraphDouble.Event] {
        (0..<count).map { index in
            let start = Self.start(hours: Double(index) * 5 + 1)
            let event = GraphDouble.Event(
                id: "\(prefix)\(String(format: "%04d", index))", subject: "Meeting \(index)", start: start, end: start.addingTimeInterval(1800),
                organizer: .init(email: mailbox, name: "Owner"),
                attendees: [.init(mailbox, type: "required", response: "organizer"), .init("bob@contoso.com", name: "Bob", response: "accepted")],
                location: "Room \(index)", joinURL: "https://teams.microsoft.com/l/meetup-join/\(index)")
            double.put(event, mailbox: mailbox)
            return event
        }
    }

    /// The mirror holds exactly the double's events of `mailbox` (ids, titles, times).
    func expectMirrorEqualsDouble(mailbox: String = GraphTestBed.user, calendar: String = "me", sourceLocation: SourceLocation = #_sourceLocation) async {
        let mirrored = await mirror.liveEvents(calendar: calendar)
        let expected = double.events(mailbox: mailbox).filter { $0.start < Self.window().end.addingTimeInterval(7 * 86_400) }
        let mirroredRows = Set(mirrored.map { "\($0.remoteID)|\($0.title)|\($0.start.timeIntervalSince1970)|\($0.end.timeIntervalSince1970)" })
        let expectedRows = Set(expected.map { "\($0.id)|\($0.subject)|\($0.start.timeIntervalSince1970)|\($0.end.timeIntervalSince1970)" })
        #expect(mirroredRows == expectedRows, "mirror: \(mirroredRows.subtracting(expectedRows)), double: \(expectedRows.subtracting(mirroredRows))",
                sourceLocation: sourceLocation)
    }

    /// The stored delta state of a calendar.
    func state(calendar: String = "me") async -> GraphCalendarState? {
        CalDAVStateCoding.decode(GraphCalendarState.self, from: await mirror.syncState(calendar: calendar))
    }

    /// Graph (not identity) GET requests recorded so far.
    var graphRequests: [GraphDouble.Request] { double.requests.filter { $0.uri.hasPrefix("/v1.0/") } }
}
