#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A Microsoft Graph and identity platform double: a real HTTP server on 127.0.0.1 that
/// behaves as Microsoft documents it, for tests and `steno-bench graph`.
///
/// - Identity (`{authority}/{tenant}/oauth2/v2.0/…`): the device authorization grant
///   (`authorization_pending`, `slow_down`, `authorization_declined`, `expired_token`), the
///   refresh-token grant (`invalid_grant` once revoked) and the client-credentials grant
///   (`invalid_client` for a wrong secret).
/// - Graph (`/v1.0`): `me` and `users/{upn}` `calendars` (the default calendar, and those
///   added with ``addCalendar(_:mailbox:)``, own or shared), and their `calendarView/delta`
///   (the mailbox's, or `calendars/{id}/calendarView/delta`), and `calendarView` of any span
///   (history; `$skip` paging), with `Prefer:
///   odata.maxpagesize` paging by `$skiptoken`, a `@odata.deltaLink` with `$deltatoken`,
///   `@removed` for deleted events and events moved out of the view, 410 `syncStateNotFound`
///   for expired state, `GET /me`, `GET …/events/{id}` (series masters too), and
///   `PATCH`/`POST` on events for write-back: recorded and applied, refused with 403
///   `ErrorAccessDenied` to a delegated token without `Calendars.ReadWrite`, with 412
///   `ErrorIrresolvableConflict` to an `If-Match` that is not the current change key; a
///   master's PATCH reaches its occurrences; a repeated `transactionId` creates nothing new.
/// - Faults on demand: 429 with `Retry-After`, 503, access tokens expired, refresh tokens revoked.
///
/// Every request is recorded with its headers; requests and bytes sent are counted.
public final class GraphDouble: Sendable {
    /// A request as the double received it.
    public struct Request: Sendable, Hashable {
        public var method: String
        /// Path and query, as sent.
        public var uri: String
        public var headers: [String: String]
        public var body: String

        /// A header by lower-cased name.
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// How the next device sign-ins end.
    public struct DeviceFlowScript: Sendable, Hashable {
        /// Polls answered `authorization_pending` before the outcome.
        public var pendingPolls: Int
        /// Answer `slow_down` at this poll (1-based), once.
        public var slowDownAtPoll: Int?
        public var outcome: Outcome

        public enum Outcome: Sendable, Hashable {
            case approve(user: String)
            case decline
            case expire
        }

        public init(pendingPolls: Int = 2, slowDownAtPoll: Int? = nil, outcome: Outcome = .approve(user: "alice@contoso.com")) {
            self.pendingPolls = pendingPolls
            self.slowDownAtPoll = slowDownAtPoll
            self.outcome = outcome
        }
    }

    /// A fault served instead of the next matching Graph request.
    public struct Fault: Sendable, Hashable {
        public var status: Int
        public var retryAfter: String?
        public var code: String
        public init(status: Int, retryAfter: String? = nil, code: String = "TooManyRequests") {
            self.status = status
            self.retryAfter = retryAfter
            self.code = code
        }
    }

    let service = GraphDoubleService()
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    public let port: Int

    /// `http://127.0.0.1:PORT` — the authority (tenants are paths under it).
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }
    /// The Graph base URL (`/v1.0`).
    public var graphURL: URL { baseURL.appendingPathComponent("v1.0") }

    /// Starts the double on a free port of 127.0.0.1.
    ///
    /// - Parameters:
    ///   - publicClients: client ids allowed the device flow and refresh grants.
    ///   - confidentialClients: client id → secret, for the client credentials grant.
    public init(
        publicClients: Set<String> = ["steno-test-client"], confidentialClients: [String: String] = [:], threads: Int = 1
    ) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        service.state.withLock {
            $0.publicClients = publicClients
            $0.confidentialClients = confidentialClients
        }
        let service = self.service
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        do {
            channel = try bootstrap.childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
                    channel.pipeline.addHandler(GraphDoubleHTTPHandler(service: service))
                }
            }.bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        port = channel.localAddress?.port ?? 0
    }

    /// Stops the server.
    public func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    // MARK: Events

    /// Creates or replaces an event in a mailbox (by UPN) — in its default calendar, or in
    /// `calendar` (``addCalendar(_:mailbox:)``); its change key is bumped.
    public func put(_ event: Event, mailbox: String = "alice@contoso.com", calendar: String? = nil) {
        service.putEvent(event, mailbox: Self.storeKey(mailbox: mailbox, calendar: calendar))
    }

    /// Changes an event in place (nothing when it does not exist).
    public func update(_ id: String, mailbox: String = "alice@contoso.com", calendar: String? = nil, _ change: (inout Event) -> Void) {
        let mailbox = Self.storeKey(mailbox: mailbox, calendar: calendar)
        guard var event = service.state.withLock({ $0.mailboxes[mailbox]?[id] }) else { return }
        change(&event)
        service.putEvent(event, mailbox: mailbox)
    }

    /// Deletes an event.
    public func remove(_ id: String, mailbox: String = "alice@contoso.com", calendar: String? = nil) {
        let mailbox = Self.storeKey(mailbox: mailbox, calendar: calendar)
        service.state.withLock { state in
            guard state.mailboxes[mailbox]?.removeValue(forKey: id) != nil else { return }
            state.seq += 1
            state.changed[id] = nil
            state.tombstones[id] = (mailbox, state.seq)
            state.renderCache[id] = nil
            state.listingCache.removeAll()
        }
    }

    /// Adds a weekly (or every `intervalDays`) series: occurrences with their own ids and
    /// iCalUIds, one `uid`, the master's id as `seriesMasterId`, and their original starts.
    @discardableResult
    public func addSeries(
        id: String, subject: String, firstStart: Date, duration: TimeInterval, count: Int, intervalDays: Int = 7,
        organizer: Person? = nil, attendees: [Invitee] = [], mailbox: String = "alice@contoso.com"
    ) -> [Event] {
        let uid = "uid-\(id)"
        let occurrences = (0..<count).map { index -> Event in
            let start = firstStart.addingTimeInterval(Double(index * intervalDays) * 86_400)
            return Event(
                id: "\(id)-occ\(index)", iCalUId: "ical-\(id)-\(index)", uid: uid, type: "occurrence", seriesMasterId: id,
                originalStart: start, subject: subject, start: start, end: start.addingTimeInterval(duration), organizer: organizer,
                attendees: attendees)
        }
        for occurrence in occurrences { put(occurrence, mailbox: mailbox) }
        return occurrences
    }

    /// The events of a mailbox's calendar (its default one unless named), by id.
    public func events(mailbox: String = "alice@contoso.com", calendar: String? = nil) -> [Event] {
        let mailbox = Self.storeKey(mailbox: mailbox, calendar: calendar)
        return service.state.withLock { $0.mailboxes[mailbox].map { Array($0.values) } ?? [] }.sorted { $0.id < $1.id }
    }

    /// Makes every delta and skip token issued so far answer 410 with `code`
    /// (`syncStateNotFound`, or `resyncRequired`).
    public func expireDeltaTokens(code: String = "syncStateNotFound") {
        service.state.withLock {
            $0.epoch += 1
            $0.resyncCode = code
        }
    }

    /// Serves these faults, in order, to the next Graph requests (not to the identity endpoints).
    public func inject(_ faults: [Fault]) {
        service.state.withLock { $0.faults += faults }
    }

    /// Drops the faults not served yet.
    public func clearFaults() {
        service.state.withLock { $0.faults = [] }
    }

    /// The page size when the request names none (Graph's calendarView default is 10).
    public func setDefaultPageSize(_ size: Int) {
        service.state.withLock { $0.defaultPageSize = max(1, size) }
    }

    /// Whether request bodies and headers are kept (a benchmark turns it off).
    public func setRecording(_ on: Bool) {
        service.state.withLock { $0.recordBodies = on }
    }

    // MARK: Identity

    /// How the next device sign-ins behave; `interval` is the polling interval handed out.
    public func scriptDeviceFlow(_ script: DeviceFlowScript, interval: Int = 1, lifetime: Int = 900) {
        service.state.withLock {
            $0.deviceScript = script
            $0.deviceInterval = interval
            $0.deviceLifetime = lifetime
        }
    }

    /// Access tokens stop working (requests get 401 until the client renews).
    public func expireAccessTokens() {
        service.state.withLock { $0.accessTokens.removeAll() }
    }

    /// Refresh tokens stop working (`invalid_grant`), as after a password reset.
    public func revokeRefreshTokens() {
        service.state.withLock { $0.refreshTokens.removeAll() }
    }

    /// Issues a refresh token for `user` directly (tests that skip the device flow), for the
    /// delegated `scope` (write-back needs `Calendars.ReadWrite`).
    public func issueRefreshToken(for user: String, scope: String = "offline_access Calendars.Read") -> String {
        service.state.withLock { state in
            state.tokenCounter += 1
            let token = "rt-\(state.tokenCounter)-\(UUID().uuidString.prefix(8))"
            state.refreshTokens[token] = GraphDoubleService.Grant(principal: "user:\(user)", scope: scope)
            return token
        }
    }

    /// The next PATCH of event `id` finds it changed by someone else first (its change key
    /// bumped), as when a person edits the event between Steno's read and its write.
    public func changeBeforeNextWrite(_ id: String, times: Int = 1) {
        service.state.withLock { $0.changesBeforeWrite[id, default: 0] += times }
    }

    // MARK: Observation

    /// Every request so far.
    public var requests: [Request] { service.state.withLock { $0.requests } }
    /// PATCH and POST requests on events (write-back).
    public var writes: [Request] { service.state.withLock { $0.writes } }
    /// Requests served and body bytes sent.
    public var counters: (requests: Int, bytesSent: Int) { service.state.withLock { ($0.requestCount, $0.bytesSent) } }

    /// CPU time (seconds) the double's server thread has used: with one thread, everything
    /// the double does, so a benchmark can subtract it from the process's CPU time.
    public func serverCPUSeconds() throws -> Double {
        try channel.eventLoop.submit { () -> Double in
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }.wait()
    }

    /// Forgets recorded requests and zeroes the counters.
    public func resetCounters() {
        service.state.withLock {
            $0.requests.removeAll()
            $0.requestCount = 0
            $0.bytesSent = 0
        }
    }
}

/// The double's state and request handling, shared by the server's channels.
final class GraphDoubleService: Sendable {
    let state = Mutex(State())

    struct State {
        /// Events by store key (``GraphDouble/storeKey(mailbox:calendar:)``) and id.
        var mailboxes: [String: [String: GraphDouble.Event]] = [:]
        /// Each mailbox's calendars besides its default one.
        var calendars: [String: [GraphDouble.Calendar]] = [:]
        /// Per event id: the sequence number of its last change.
        var changed: [String: Int] = [:]
        /// Deleted events: id → (mailbox, sequence of the deletion).
        var tombstones: [String: (mailbox: String, seq: Int)] = [:]
        var seq = 0
        var epoch = 0
        var resyncCode = "syncStateNotFound"
        var faults: [GraphDouble.Fault] = []
        var requests: [GraphDouble.Request] = []
        /// Graph responses are held this long, so requests overlap as on a real server.
        var graphDelayMilliseconds = 0
        /// Graph requests in flight per mailbox, and the most seen at once.
        var inFlight: [String: Int] = [:]
        var peakInFlight: [String: Int] = [:]
        var concurrencyRefusals = 0
        var writes: [GraphDouble.Request] = []
        var requestCount = 0
        var bytesSent = 0
        var defaultPageSize = 10
        // Identity.
        var publicClients: Set<String> = []
        var confidentialClients: [String: String] = [:]
        var deviceScript = GraphDouble.DeviceFlowScript()
        var deviceCodes: [String: DeviceCode] = [:]
        var deviceInterval = 1
        var deviceLifetime = 900
        var accessTokens: [String: Grant] = [:]
        var refreshTokens: [String: Grant] = [:]
        /// POSTed events by `transactionId` (mailbox, id): a retried create returns the first.
        var transactions: [String: (mailbox: String, id: String)] = [:]
        /// Series masters' change generations (their occurrences are the stored events).
        var masterGenerations: [String: Int] = [:]
        var changesBeforeWrite: [String: Int] = [:]
        var accessTokenLifetime = 3600
        var tokenCounter = 0
        var recordBodies = true
        var renderCache: [String: Data] = [:]
        /// Each round's listing, computed on its first page (cleared by any change).
        var listingCache: [String: [DeltaEntry]] = [:]
    }

    /// Who a token speaks for (`user:UPN` or `app:CLIENT`) and the scopes it carries.
    struct Grant {
        var principal: String
        var scope: String

        /// Whether the token may write events: application tokens (their permission is the
        /// tenant's grant), delegated ones only with `Calendars.ReadWrite`.
        var canWrite: Bool { principal.hasPrefix("app:") || scope.split(separator: " ").contains("Calendars.ReadWrite") }
    }

    struct DeviceCode {
        var clientID: String
        var scope: String
        var polls = 0
        var expiresAt: Date
        var redeemed = false
        var script: GraphDouble.DeviceFlowScript
    }
}
