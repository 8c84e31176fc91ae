import Foundation
import Logging
import StenoCalendar
import StenoCore
import StenoTesting

/// A Radicale server with one user, a writer for it, an in-memory mirror and a CalDAV
/// provider: what every CalDAV integration test starts from.
final class CalDAVTestServer: @unchecked Sendable {
    let radicale: RadicaleServer
    /// Made once Radicale runs: a transport dropped without being shut down stops the process.
    let transport: HTTPTransport
    let writer: CalDAVTestWriter
    let mirror = InMemoryCalendarMirror()
    let user = "alice"
    let password = "s3cret"
    var account: CalendarAccount
    var options = CalDAVProvider.Options(defaultTimeZone: TimeZone(identifier: "UTC") ?? .current)
    /// The instant syncs take as now (tests move it to slide the window).
    var now = Date()

    init() throws {
        radicale = try RadicaleServer(users: [user: password])
        transport = HTTPTransport()
        writer = CalDAVTestWriter(transport: transport, user: user, password: password)
        account = CalendarAccount(
            id: 1, provider: .caldav, ownerID: 1, displayName: "alice@radicale",
            settings: ["url": radicale.baseURL.absoluteString, "user": user], hasSecret: true)
    }

    /// Runs `body` with a fresh server, and stops it afterwards whatever happens.
    static func run(_ body: (CalDAVTestServer) async throws -> Void) async throws {
        let server = try CalDAVTestServer()
        do {
            try await body(server)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Stops the server and the transport.
    func shutdown() async {
        try? await transport.shutdown()
        radicale.shutdown()
    }

    /// A collection URL of the user.
    func calendarURL(_ name: String) -> URL { radicale.collectionURL(user: user, name: name) }

    /// An object URL in a collection.
    func objectURL(_ calendar: String, _ name: String) -> URL { calendarURL(calendar).appendingPathComponent(name) }

    /// The collection's remote id in the mirror.
    func remoteID(_ calendar: String) -> String { "/\(user)/\(calendar)/" }

    /// Runs one sync as the service would: the account as stored after previous syncs.
    @discardableResult
    func sync(password: String? = nil) async throws -> CalendarSyncReport {
        let provider = CalDAVProvider(transport: transport, options: options)
        var logger = Logger(label: "caldav-test")
        logger.logLevel = .warning
        let context = CalendarSyncContext(
            account: await mirror.account(account), credentials: CalendarCredentials(password: password ?? self.password),
            window: ICalendar.mirroredWindow(around: now), mirror: mirror, logger: logger)
        return try await provider.sync(context)
    }

    /// Asks the server for the history of `spans`, as the service would after syncs.
    func fetchHistory(_ spans: [DateInterval]) async throws -> CalendarSyncReport {
        let provider = CalDAVProvider(transport: transport, options: options)
        let context = CalendarSyncContext(
            account: await mirror.account(account), credentials: CalendarCredentials(password: password),
            window: ICalendar.mirroredWindow(around: now), mirror: mirror, logger: Logger(label: "caldav-test"))
        return try await provider.fetchHistory(spans, context: context)
    }

    /// An instant `days` days and `hours` hours from now, on a whole hour.
    func at(days: Double, hours: Double = 0) -> Date {
        let hour = (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600
        return Date(timeIntervalSince1970: hour + days * 86_400 + hours * 3600)
    }

    /// A one-hour event `days` from now.
    func event(uid: String, summary: String, days: Double, extra: [String] = []) -> String {
        TestEvents.single(
            uid: uid, summary: summary, start: TestEvents.utc(at(days: days)), end: TestEvents.utc(at(days: days, hours: 1)), extra: extra)
    }
}
