import Foundation
import Logging
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// Server behaviours Radicale does not show, from a scripted server on 127.0.0.1: Google's
/// truncated sync-collection pages (507), rate limits, server errors, OAuth refresh.
@Suite("CalDAV provider against a scripted server", .serialized)
struct CalDAVServerBehaviourTests {
    static func ics(_ uid: String) -> String {
        TestEvents.single(uid: uid, summary: uid.uppercased(), start: TestEvents.utc(Date().addingTimeInterval(86_400)),
                          end: TestEvents.utc(Date().addingTimeInterval(90_000)))
    }
    static let listing = ScriptedHTTPServer.Rule(
        method: "PROPFIND", path: "/cal/home/", status: 207, body: ScriptedDAV.home(calendar: "/cal/home/c1/", ctag: "c1"))

    /// Runs one sync against `server` for an account whose home is already known.
    func sync(
        _ server: ScriptedHTTPServer, mirror: InMemoryCalendarMirror, credentials: CalendarCredentials = CalendarCredentials(password: "pw"),
        settings: [String: String] = [:]
    ) async throws -> CalendarSyncReport {
        let transport = HTTPTransport()
        var account = CalendarAccount(
            id: 1, provider: .caldav, ownerID: 1, displayName: "scripted",
            settings: ["url": server.baseURL.absoluteString, "user": "u"].merging(settings) { _, new in new })
        account.syncState = CalDAVStateCoding.encode(CalDAVAccountState(principalURL: nil, homeURL: server.baseURL.absoluteString + "cal/home/"))
        account.capabilities = CalDAVStateCoding.encode(
            CalDAVCapabilities(syncCollection: true, calendarMultiget: true, calendarQuery: true, scheduling: false, davClasses: ["1"]))
        let context = CalendarSyncContext(
            account: await mirror.account(account), credentials: credentials,
            window: ICalendar.mirroredWindow(around: Date()), mirror: mirror, logger: Logger(label: "scripted"))
        do {
            // The scripts answer whole-collection listings (sync-collection), not time-range ones.
            let report = try await CalDAVProvider(transport: transport, options: CalDAVProvider.Options(listsByTimeRange: false)).sync(context)
            try await transport.shutdown()
            return report
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test("a truncated sync-collection result (507) is resumed with the token it returned")
    func truncatedResults() async throws {
        let server = try ScriptedHTTPServer(rules: [
            Self.listing,
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "<D:sync-token></D:sync-token>", status: 207,
                  body: ScriptedDAV.multistatus(
                    [ScriptedDAV.member("/cal/home/c1/a.ics", etag: "\"a1\""), ScriptedDAV.member("b.ics", etag: "\"b1\""),
                     ScriptedDAV.status("/cal/home/c1/", "507 Insufficient Storage")], syncToken: "t1")),
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "<D:sync-token>t1</D:sync-token>", status: 207,
                  body: ScriptedDAV.multistatus(
                    [ScriptedDAV.member("http://127.0.0.1/cal/home/c1/c.ics", etag: "\"c1\""), ScriptedDAV.status("/cal/home/c1/b.ics", "404 Not Found"),
                     ScriptedDAV.member("/cal/home/c1/b.ics", etag: "\"b2\"")], syncToken: "t2")),
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "calendar-multiget", status: 207,
                  body: ScriptedDAV.multistatus([
                    ScriptedDAV.object("/cal/home/c1/a.ics", etag: "\"a1\"", ics: Self.ics("a")),
                    ScriptedDAV.object("/cal/home/c1/b.ics", etag: "\"b2\"", ics: Self.ics("b")),
                    ScriptedDAV.object("/cal/home/c1/c.ics", etag: "\"c1\"", ics: Self.ics("c")),
                  ])),
        ])
        defer { server.shutdown() }
        let mirror = InMemoryCalendarMirror()
        let report = try await sync(server, mirror: mirror)
        #expect(report.requests == 4)
        #expect(Set(await mirror.liveEvents(calendar: "/cal/home/c1/").map(\.meetingIdentity)) == ["a", "b", "c"])
        let state = CalDAVStateCoding.decode(CalDAVCalendarState.self, from: await mirror.syncState(calendar: "/cal/home/c1/"))
        #expect(state?.syncToken == "t2")
        // One multiget for the three hrefs, each named once.
        let multiget = try #require(server.requests.first { $0.body.contains("calendar-multiget") })
        #expect(multiget.body.components(separatedBy: "<D:href>").count - 1 == 3)
    }

    @Test("a multiget the server finds too large (507) is fetched again in halves")
    func multigetHalvedWhenRefused() async throws {
        let server = try ScriptedHTTPServer(rules: [
            Self.listing,
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "<D:sync-token></D:sync-token>", status: 207,
                  body: ScriptedDAV.multistatus(
                    ["first", "second", "third", "fourth"].map { ScriptedDAV.member("/cal/home/c1/\($0).ics", etag: "\"1\"") }, syncToken: "t1")),
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "calendar-multiget", times: 1, status: 507,
                  body: "<error xmlns=\"DAV:\"><number-of-matches-within-limits/></error>"),
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "first.ics", status: 207,
                  body: ScriptedDAV.multistatus(["first", "second"].map { ScriptedDAV.object("/cal/home/c1/\($0).ics", etag: "\"1\"", ics: Self.ics($0)) })),
            .init(method: "REPORT", path: "/cal/home/c1/", bodyContains: "third.ics", status: 207,
                  body: ScriptedDAV.multistatus(["third", "fourth"].map { ScriptedDAV.object("/cal/home/c1/\($0).ics", etag: "\"1\"", ics: Self.ics($0)) })),
        ])
        defer { server.shutdown() }
        let mirror = InMemoryCalendarMirror()
        let report = try await sync(server, mirror: mirror)
        #expect(report.requests == 5)  // listing, sync-collection, the refused multiget, two halves
        #expect(Set(await mirror.liveEvents(calendar: "/cal/home/c1/").map(\.meetingIdentity)) == ["first", "second", "third", "fourth"])
    }

    @Test("429 with Retry-After → retry later after that delay")
    func rateLimited() async throws {
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "PROPFIND", path: "/cal/home/", status: 429, headers: ["Retry-After": "120"], body: "slow down")
        ])
        defer { server.shutdown() }
        await #expect(throws: CalendarSyncError.retryLater(after: .seconds(120), reason: "PROPFIND \(server.baseURL.absoluteString)cal/home/: the server is busy (HTTP 429)")) {
            _ = try await sync(server, mirror: InMemoryCalendarMirror())
        }
    }

    @Test("a server error names the method, URL and status")
    func serverError() async throws {
        let server = try ScriptedHTTPServer(rules: [
            Self.listing, .init(method: "REPORT", path: "/cal/home/c1/", status: 500, body: "boom"),
        ])
        defer { server.shutdown() }
        do {
            _ = try await sync(server, mirror: InMemoryCalendarMirror())
            Issue.record("the sync succeeded")
        } catch let error as CalendarSyncError {
            guard case .badSource(let message) = error else {
                Issue.record("expected badSource, got \(error)")
                return
            }
            #expect(message.contains("REPORT sync-collection \(server.baseURL.absoluteString)cal/home/c1/"))
            #expect(message.contains("HTTP 500"))
        }
    }

    @Test("a rejected OAuth token is refreshed once, saved, and the request retried")
    func oauthRefresh() async throws {
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "PROPFIND", path: "/cal/home/", authorization: "Bearer old", status: 401),
            .init(method: "POST", path: "/token", status: 200, headers: ["Content-Type": "application/json"],
                  body: #"{"access_token":"new","expires_in":3600,"refresh_token":"r2","token_type":"Bearer"}"#),
            .init(method: "PROPFIND", path: "/cal/home/", authorization: "Bearer new", status: 207,
                  body: ScriptedDAV.home(calendar: "/cal/home/c1/", ctag: "c1")),
            .init(method: "REPORT", path: "/cal/home/c1/", authorization: "Bearer new", status: 207,
                  body: ScriptedDAV.multistatus([], syncToken: "t1")),
        ])
        defer { server.shutdown() }
        let mirror = InMemoryCalendarMirror()
        let report = try await sync(
            server, mirror: mirror, credentials: CalendarCredentials(accessToken: "old", refreshToken: "r1", clientSecret: "s"),
            settings: ["token_url": server.baseURL.absoluteString + "token", "client_id": "cid"])
        #expect(report.requests == 4)
        let saved = try #require(await mirror.savedCredentials.last)
        #expect(saved.accessToken == "new")
        #expect(saved.refreshToken == "r2")
        #expect(saved.accessTokenExpiresAt.map { $0 > Date().addingTimeInterval(3000) } == true)
        let refresh = try #require(server.requests.first { $0.method == "POST" })
        #expect(refresh.body == "grant_type=refresh_token&refresh_token=r1&client_id=cid&client_secret=s")
    }

    @Test("a refused refresh token → needs credentials")
    func oauthRefused() async throws {
        let server = try ScriptedHTTPServer(rules: [
            .init(method: "PROPFIND", path: "/cal/home/", status: 401),
            .init(method: "POST", path: "/token", status: 400, body: #"{"error":"invalid_grant"}"#),
        ])
        defer { server.shutdown() }
        do {
            _ = try await sync(
                server, mirror: InMemoryCalendarMirror(), credentials: CalendarCredentials(accessToken: "old", refreshToken: "r1"),
                settings: ["token_url": server.baseURL.absoluteString + "token"])
            Issue.record("the sync succeeded")
        } catch let error as CalendarSyncError {
            guard case .needsCredentials(let message) = error else {
                Issue.record("expected needsCredentials, got \(error)")
                return
            }
            #expect(message.contains("invalid_grant"))
        }
    }
}
