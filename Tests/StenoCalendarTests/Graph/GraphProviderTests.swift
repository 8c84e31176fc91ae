import Foundation
import StenoCore
import StenoTesting
import Testing

@testable import StenoCalendar

/// The Graph provider against the Graph double on 127.0.0.1: paging, delta rounds,
/// removals, resync after expired state, throttling, token renewal and refusal, organisation
/// accounts. Every sync test ends with the mirror equal to the double's state.
@Suite("Graph provider against the double", .serialized)
struct GraphProviderTests {
    /// Credentials with a refresh token the double knows (the first request renews the access token).
    func credentials(_ bed: GraphTestBed) -> CalendarCredentials {
        CalendarCredentials(refreshToken: bed.double.issueRefreshToken(for: GraphTestBed.user))
    }

    @Test("a full sync follows nextLink pages to the deltaLink with the Prefer headers, then saves the link with the events")
    func fullSync() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(25)
        let report = try await bed.sync(bed.delegatedAccount(), credentials: credentials(bed))
        #expect(report.fullSyncs == 1 && report.changes.inserted == 25)
        let pages = bed.graphRequests.filter { $0.uri.contains("/calendarView/delta") }
        #expect(pages.count == 3)
        #expect(report.requests == 5, "the calendars listed, three pages and one token renewal")
        for page in pages {
            let prefer = page.header("prefer") ?? ""
            #expect(prefer.contains("odata.maxpagesize=10") && prefer.contains("outlook.timezone=\"UTC\"") && prefer.contains("IdType=\"ImmutableId\""))
        }
        #expect(pages[0].uri.contains("startDateTime=") && pages[0].uri.contains("endDateTime="))
        #expect(pages[1].uri.contains("$skiptoken=") && pages[2].uri.contains("$skiptoken="))
        let state = try #require(await bed.state())
        #expect(state.deltaLink?.contains("$deltatoken=") == true)
        await bed.expectMirrorEqualsDouble()
        let event = try #require(await bed.mirror.liveEvents(calendar: "me").first { $0.remoteID == "ev0003" })
        #expect(event.title == "Meeting 3" && event.location == "Room 3")
        #expect(event.onlineMeetingURL == "https://teams.microsoft.com/l/meetup-join/3")
        #expect(event.organizer?.email == GraphTestBed.user && event.attendees.map(\.email) == [GraphTestBed.user, "bob@contoso.com"])
        #expect(event.attendees.last?.response == .accepted && event.timeZone == "Europe/Berlin")
    }

    @Test("an incremental sync takes one request besides the calendars listing: changes applied, @removed tombstoned")
    func incrementalSync() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(12)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        bed.double.resetCounters()
        bed.double.update("ev0001") { $0.subject = "Renamed" }
        bed.double.remove("ev0002")
        let added = GraphDouble.Event(id: "new1", subject: "New", start: GraphTestBed.start(hours: 3), end: GraphTestBed.start(hours: 4))
        bed.double.put(added)
        let report = try await bed.sync(account, credentials: credentials(bed))
        #expect(report.requests == 2 && report.fullSyncs == 0, "the calendars listed, one delta request")
        #expect(report.changes.inserted == 1 && report.changes.updated == 1 && report.changes.deleted == 1)
        await bed.expectMirrorEqualsDouble()
        // Nothing changed: the listing and one delta request, nothing applied.
        let quiet = try await bed.sync(account, credentials: credentials(bed))
        #expect(quiet.requests == 2 && quiet.changes.inserted + quiet.changes.updated + quiet.changes.deleted == 0)
    }

    @Test("occurrences of a recurring series keep their own iCalUIds, share the series uid, and are distinct meetings")
    func recurringSeries() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        let first = GraphTestBed.start(hours: 2)
        bed.double.addSeries(
            id: "series1", subject: "Weekly", firstStart: first, duration: 1800, count: 5, organizer: .init(email: "carol@contoso.com"),
            attendees: [.init("alice@contoso.com", response: "tentativelyAccepted"), .init("room1@contoso.com", type: "resource", response: "accepted")])
        _ = try await bed.sync(bed.delegatedAccount(), credentials: credentials(bed))
        let occurrences = await bed.mirror.liveEvents(calendar: "me")
        #expect(occurrences.count == 5)
        #expect(Set(occurrences.compactMap(\.iCalUID)).count == 5)
        #expect(Set(occurrences.compactMap(\.seriesUID)) == ["uid-series1"])
        #expect(Set(occurrences.map(\.meetingIdentity)).count == 5)
        let second = try #require(occurrences.dropFirst().first)
        #expect(second.recurrenceID == first.addingTimeInterval(7 * 86_400))
        #expect(second.meetingIdentity == MeetingIdentity.iCalendar(uid: "uid-series1", recurrenceID: second.recurrenceID))
        #expect(second.attendees.map(\.role) == [.organizer, .required, .resource])
        #expect(second.attendees[1].response == .tentative)
        await bed.expectMirrorEqualsDouble()
    }

    @Test("410 syncStateNotFound / resyncRequired → a full round that tombstones only what is gone", arguments: ["syncStateNotFound", "resyncRequired"])
    func resync(code: String) async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(15)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        bed.double.expireDeltaTokens(code: code)
        bed.double.remove("ev0004")
        bed.double.update("ev0005") { $0.subject = "Moved" }
        let report = try await bed.sync(account, credentials: credentials(bed))
        #expect(report.fullSyncs == 1)
        #expect(report.changes.deleted == 1 && report.changes.updated == 1 && report.changes.unchanged == 13)
        #expect(bed.double.requests.contains { $0.uri.contains("$deltatoken") })
        await bed.expectMirrorEqualsDouble()
    }

    @Test("429 and 503 with Retry-After are waited out; a Retry-After beyond the policy ends the sync as retry-later")
    func throttling() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(5)
        let account = bed.delegatedAccount()
        bed.double.inject([.init(status: 429, retryAfter: "1"), .init(status: 503, retryAfter: "0", code: "ServiceUnavailable")])
        let started = Date()
        _ = try await bed.sync(account, credentials: credentials(bed))
        #expect(Date().timeIntervalSince(started) >= 1)
        await bed.expectMirrorEqualsDouble()
        bed.double.inject([.init(status: 429, retryAfter: "3600")])
        do {
            _ = try await bed.sync(account, credentials: credentials(bed))
            Issue.record("the sync should end as retry-later")
        } catch let CalendarSyncError.retryLater(after, reason) {
            #expect(after == .seconds(3600) && reason.contains("HTTP 429"))
        }
    }

    @Test("an expired access token is renewed once on 401 and the new credentials are saved")
    func renewalOn401() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(3)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        let saved = await bed.mirror.savedCredentials.count
        bed.double.expireAccessTokens()
        bed.double.update("ev0000") { $0.subject = "After renewal" }
        let report = try await bed.sync(account, credentials: credentials(bed))
        #expect(report.requests == 4, "401, token renewal, the retried request, the delta request")
        #expect(await bed.mirror.savedCredentials.count == saved + 1)
        await bed.expectMirrorEqualsDouble()
    }

    @Test("a refused refresh token (invalid_grant) → needs sign-in, naming the command that fixes it")
    func invalidGrant() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(2)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        bed.double.revokeRefreshTokens()
        bed.double.expireAccessTokens()
        do {
            _ = try await bed.sync(account, credentials: credentials(bed))
            Issue.record("the sync should fail")
        } catch let CalendarSyncError.needsCredentials(message) {
            #expect(message.contains("needs sign-in") && message.contains("invalid_grant") && message.contains("steno accounts signin 1"))
        }
    }

    @Test("an organisation account reads each user's mailbox with client credentials")
    func organisation() async throws {
        let bed = try GraphTestBed(confidential: ["org-app": "s3cret"])
        defer { Task { await bed.shutdown() } }
        bed.seed(4, mailbox: "bob@contoso.com", prefix: "b")
        bed.seed(3, mailbox: "carol@contoso.com", prefix: "c")
        var account = bed.delegatedAccount(settings: ["mode": "application", "client_id": "org-app", "tenant": "contoso.onmicrosoft.com"])
        account.settings["mailbox"] = nil
        let report = try await bed.sync(
            account, credentials: CalendarCredentials(clientSecret: "s3cret"), mappedMailboxes: ["bob@contoso.com", "Carol@contoso.com"])
        #expect(report.calendars == 2)
        await bed.expectMirrorEqualsDouble(mailbox: "bob@contoso.com", calendar: "users/bob@contoso.com")
        await bed.expectMirrorEqualsDouble(mailbox: "carol@contoso.com", calendar: "users/carol@contoso.com")
        #expect(bed.double.requests.contains { $0.body.contains("grant_type=client_credentials") && $0.body.contains("scope=http") })

        account.settings["users"] = "bob@contoso.com"
        _ = try await bed.sync(account, credentials: CalendarCredentials(clientSecret: "s3cret"))
        #expect(try await bed.mirror.calendars().map(\.remoteID) == ["users/bob@contoso.com"])

        await #expect(throws: CalendarSyncError.self) {
            try await GraphTestBed.syncFresh(bed, account, CalendarCredentials(clientSecret: "wrong"))
        }
    }

    @Test("a window slid past the round's end starts a full round; within the slack the delta link is used")
    func slidingWindow() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        bed.seed(4)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        let withinSlack = try await bed.sync(account, credentials: credentials(bed), window: GraphTestBed.window(shiftedDays: 3))
        #expect(withinSlack.fullSyncs == 0)
        let beyond = try await bed.sync(account, credentials: credentials(bed), window: GraphTestBed.window(shiftedDays: 10))
        #expect(beyond.fullSyncs == 1)
        let state = try #require(await bed.state())
        #expect(state.covers(GraphTestBed.window(shiftedDays: 10)))
        await bed.expectMirrorEqualsDouble()
    }

    @Test("a full round keeps events mirrored outside its window, and tombstones those inside it that it no longer lists")
    func fullRoundKeepsEventsOutsideItsWindow() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        let old = GraphDouble.Event(id: "old", subject: "Last month's review", start: GraphTestBed.start(hours: -20 * 24), end: GraphTestBed.start(hours: -20 * 24 + 1))
        bed.double.put(old)
        bed.seed(3)
        let account = bed.delegatedAccount()
        _ = try await bed.sync(account, credentials: credentials(bed))
        #expect(await bed.mirror.liveEvents(calendar: "me").count == 4)
        // Two weeks on the window no longer reaches the review, and an event was deleted meanwhile.
        bed.double.remove("ev0001")
        bed.double.expireDeltaTokens()
        let report = try await bed.sync(account, credentials: credentials(bed), window: GraphTestBed.window(shiftedDays: 15))
        #expect(report.fullSyncs == 1 && report.changes.deleted == 1)
        let live = await bed.mirror.liveEvents(calendar: "me").map(\.remoteID)
        #expect(live.sorted() == ["ev0000", "ev0002", "old"])
    }

    @Test("GET /events/{id} finds events, or reports them gone (404), with one token renewal for the batch")
    func lookUp() async throws {
        let bed = try GraphTestBed()
        defer { Task { await bed.shutdown() } }
        let events = bed.seed(12)
        let context = bed.accountContext(credentials: credentials(bed))
        let provider = GraphProvider(transport: bed.transport)
        let keys = events.map { CalendarEventKey(calendarRemoteID: "me", resource: $0.id) } + [CalendarEventKey(calendarRemoteID: "me", resource: "nope")]
        let found = try await provider.lookUpEvents(keys, context: context)
        #expect(found.count == 13)
        guard case .found(let occurrence, let etag) = found[keys[0]] else { Issue.record("not found: \(String(describing: found[keys[0]]))"); return }
        #expect(occurrence.title == "Meeting 0" && occurrence.start == events[0].start && etag == "ck-0")
        #expect(found[keys[12]] == .gone)
        let tokenRequests = bed.double.requests.filter { $0.uri.hasSuffix("/oauth2/v2.0/token") }
        #expect(tokenRequests.count == 1, "one renewal for all thirteen lookups")
    }

    @Test("at most four requests are in flight per mailbox")
    func gate() async throws {
        let gate = GraphRequestGate(limit: 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { try await gate.run(mailbox: "me") { try await Task.sleep(for: .milliseconds(20)) } }
            }
            try await group.waitForAll()
        }
        #expect(await gate.peak == 4)
    }
}

extension GraphTestBed {
    /// Syncs with exactly these credentials (not the ones saved by earlier syncs).
    static func syncFresh(_ bed: GraphTestBed, _ account: CalendarAccount, _ credentials: CalendarCredentials) async throws {
        let context = CalendarSyncContext(
            account: account, credentials: credentials, window: window(), mirror: InMemoryCalendarMirror(), logger: .init(label: "fresh"))
        _ = try await GraphProvider(transport: bed.transport).sync(context)
    }
}

/// A mirror whose `apply` fails once after a number of successful calls: a crash mid-round.
final class CrashingMirror: CalendarMirror, @unchecked Sendable {
    let inner: InMemoryCalendarMirror
    private let lock = NSLock()
    private var remaining: Int?
    private var onFirstApply: (@Sendable () -> Void)?

    init(_ inner: InMemoryCalendarMirror) { self.inner = inner }

    /// The next `apply` calls after `count` successful ones fail, once.
    func crash(after count: Int) { lock.withLock { remaining = count } }

    /// Runs `action` once, after the next successful `apply` (the source changing mid-round).
    func afterNextApply(_ action: @escaping @Sendable () -> Void) { lock.withLock { onFirstApply = action } }

    struct Crash: Error {}

    func calendars() async throws -> [CalendarInfo] { try await inner.calendars() }
    func resourceTags(calendarRemoteID: String) async throws -> [String: String?] { try await inner.resourceTags(calendarRemoteID: calendarRemoteID) }
    func resources(calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String> {
        try await inner.resources(calendarRemoteID: calendarRemoteID, overlapping: window)
    }
    func apply(_ changes: CalendarChangeSet) async throws -> MirrorChangeSummary {
        let fail = lock.withLock { () -> Bool in
            guard let left = remaining else { return false }
            if left == 0 {
                remaining = nil
                return true
            }
            remaining = left - 1
            return false
        }
        if fail { throw Crash() }
        let summary = try await inner.apply(changes)
        lock.withLock { () -> (@Sendable () -> Void)? in
            defer { onFirstApply = nil }
            return onFirstApply
        }?()
        return summary
    }
    func removeCalendars(except remoteIDs: Set<String>) async throws { try await inner.removeCalendars(except: remoteIDs) }
    func saveAccountState(syncState: String?, capabilities: String?) async throws {
        try await inner.saveAccountState(syncState: syncState, capabilities: capabilities)
    }
    func saveCredentials(_ credentials: CalendarCredentials) async throws { try await inner.saveCredentials(credentials) }
}

@Suite("Graph provider: a crash mid-round", .serialized)
struct GraphCrashTests {
    /// 35 events read 10 per page and written 10 per change set, through a mirror that can
    /// fail or change the double between change sets; the sync of the delegated account.
    func bedWithPagedRounds() throws -> (bed: GraphTestBed, mirror: CrashingMirror, sync: @Sendable () async throws -> CalendarSyncReport) {
        let bed = try GraphTestBed(options: GraphProvider.Options(pageSize: 10, resourcesPerChangeSet: 10))
        bed.seed(35)
        let account = bed.delegatedAccount()
        let mirror = CrashingMirror(bed.mirror)
        let credentials = CalendarCredentials(refreshToken: bed.double.issueRefreshToken(for: GraphTestBed.user))
        return (bed, mirror, { try await bed.sync(account, credentials: credentials, through: mirror) })
    }

    @Test("a delta link is saved only with the events it covers: a round cut short is done again, nothing lost")
    func crashMidRound() async throws {
        let (bed, crashing, sync) = try bedWithPagedRounds()
        defer { Task { await bed.shutdown() } }
        // The full round dies after two of its four change sets: some events, no delta link.
        crashing.crash(after: 2)
        await #expect(throws: CrashingMirror.Crash.self) { try await sync() }
        #expect(await bed.mirror.liveEvents(calendar: "me").count == 20)
        #expect(await bed.state()?.deltaLink == nil)
        _ = try await sync()
        await bed.expectMirrorEqualsDouble()
        let link = try #require(await bed.state()?.deltaLink)

        // An incremental round dies before its last change set: the old link stays, the changes come again.
        for index in 0..<15 { bed.double.update(String(format: "ev%04d", index)) { $0.subject = "Changed \(index)" } }
        bed.double.remove("ev0030")
        crashing.crash(after: 1)
        await #expect(throws: CrashingMirror.Crash.self) { try await sync() }
        #expect(await bed.state()?.deltaLink == link)
        let again = try await sync()
        #expect(again.fullSyncs == 0)
        await bed.expectMirrorEqualsDouble()
        #expect(await bed.state()?.deltaLink != link)
    }

    @Test("a first round restarted when its skip token expired tombstones what the first attempt mirrored and is gone")
    func restartedFirstRound() async throws {
        let (bed, mirror, sync) = try bedWithPagedRounds()
        defer { Task { await bed.shutdown() } }
        let double = bed.double
        mirror.afterNextApply {
            double.remove("ev0003")
            double.expireDeltaTokens()
        }
        let report = try await sync()
        #expect(report.changes.deleted == 1)
        #expect(await bed.mirror.liveEvents(calendar: "me").count == 34)
        await bed.expectMirrorEqualsDouble()
    }
}
