import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

@Suite("Devices: tokens, pairing, pushed events and the change feeds")
struct DeviceStoreTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let work = CalendarDescriptor(remoteID: "CAL-WORK", name: "Work")

    func setUp(_ backend: StoreBackend) async throws -> (any CatalogStore & IngestStore, DeviceRecord, OpenedCatalog) {
        let opened = try await backend.open()
        let catalog = opened.store
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let device = try await catalog.addDevice(ownerID: alice.id, label: "iphone", timeZone: "Europe/Berlin", tokenHash: Data([1]), now: now)
        return (catalog, device, opened)
    }

    func upsert(
        _ id: String, title: String = "Standup", at hour: Double = 0, stamp: Int64? = 1000, calendar: CalendarDescriptor? = nil,
        accountID: Int64, uid: String? = nil, request: Int64? = nil
    ) -> DeviceEventWrite {
        let start = now.addingTimeInterval(hour * 3600)
        let occurrence = EventOccurrence(
            remoteID: id, iCalUID: uid, seriesUID: uid,
            meetingIdentity: DeviceEventKeys.meetingIdentity(accountID: accountID, remoteID: id, iCalUID: uid, occurrenceDate: nil),
            title: title, start: start, end: start.addingTimeInterval(1800), timeZone: "Europe/Berlin")
        return DeviceEventWrite(remoteID: id, externalUpdatedAt: stamp, change: .upsert(calendar: calendar ?? work, occurrence: occurrence, request: request))
    }

    /// The change clock's last value.
    func clock(_ opened: OpenedCatalog) async throws -> Int64 {
        try await opened.column("SELECT CAST(last AS TEXT) FROM change_clock WHERE id = 1").first.flatMap { $0.flatMap { Int64($0) } } ?? -1
    }

    @Test(arguments: StoreBackend.available) func tokensArePairedOnceAndRevokedForGood(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        #expect(try await catalog.device(tokenHash: Data([1]))?.id == device.id)
        #expect(try await catalog.device(tokenHash: Data([2])) == nil)
        await #expect(throws: StoreError.self) {
            _ = try await catalog.addDevice(ownerID: device.ownerID, label: "iphone", timeZone: "UTC", tokenHash: Data([3]), now: now)
        }
        try await catalog.addPairing(
            codeHash: Data([9]), ownerID: device.ownerID, label: "ipad", timeZone: nil, expiresAt: now.addingTimeInterval(600), now: now)
        let paired = try await catalog.redeemPairing(codeHash: Data([9]), tokenHash: Data([4]), label: "x", timeZone: "UTC", now: now)
        #expect(paired?.label == "ipad" && paired?.timeZone == "UTC" && paired?.ownerName == "alice")
        // One use only, and never after it expires.
        #expect(try await catalog.redeemPairing(codeHash: Data([9]), tokenHash: Data([5]), label: "x", timeZone: "UTC", now: now) == nil)
        try await catalog.addPairing(
            codeHash: Data([8]), ownerID: device.ownerID, label: nil, timeZone: nil, expiresAt: now.addingTimeInterval(600), now: now)
        #expect(
            try await catalog.redeemPairing(codeHash: Data([8]), tokenHash: Data([6]), label: "x", timeZone: "UTC", now: now.addingTimeInterval(601))
                == nil)
        let revoked = try await catalog.revokeDevice(id: device.id, now: now)
        #expect(revoked.revokedAt != nil)
        #expect(try await catalog.device(tokenHash: Data([1])) == nil)
        #expect(try await catalog.account(id: device.accountID).health == .disabled)
        #expect(try await catalog.devices(ownerID: device.ownerID, afterID: nil, limit: 10).count == 2)
    }

    @Test(arguments: StoreBackend.available) func pushesAreIdempotentAndStaleOnesIgnored(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let first = try await catalog.applyDeviceEvents(
            [upsert("A1", accountID: device.accountID), upsert("A2", at: 2, accountID: device.accountID)], accountID: device.accountID, now: now)
        #expect(first.outcomes == [.ok, .ok] && first.changes.inserted == 2)
        let sequence = try await clock(opened)
        // The same again writes nothing: not an event, not the change clock.
        let again = try await catalog.applyDeviceEvents(
            [upsert("A1", accountID: device.accountID), upsert("A2", at: 2, accountID: device.accountID)], accountID: device.accountID,
            now: now.addingTimeInterval(60))
        #expect(again.outcomes == [.unchanged, .unchanged] && again.changes.touchedMeetingIDs.isEmpty)
        #expect(try await clock(opened) == sequence)
        // Older than what is stored: ignored; newer: stored.
        let stale = try await catalog.applyDeviceEvents(
            [upsert("A1", title: "Old", stamp: 999, accountID: device.accountID), upsert("A2", title: "Renamed", at: 2, stamp: 2000, accountID: device.accountID)],
            accountID: device.accountID, now: now.addingTimeInterval(120))
        #expect(stale.outcomes == [.stale, .ok])
        let events = try await catalog.mirroredEvents(accountID: device.accountID, includeDeleted: false)
        #expect(events.map(\.occurrence.title).sorted() == ["Renamed", "Standup"])
        // Deleting twice: the second finds nothing to delete.
        let deleted = try await catalog.applyDeviceEvents(
            [DeviceEventWrite(remoteID: "A1", externalUpdatedAt: nil, change: .delete(allOccurrences: true))], accountID: device.accountID, now: now)
        #expect(deleted.outcomes == [.ok] && deleted.changes.deleted == 1)
        let twice = try await catalog.applyDeviceEvents(
            [DeviceEventWrite(remoteID: "A1", externalUpdatedAt: nil, change: .delete(allOccurrences: true))], accountID: device.accountID, now: now)
        #expect(twice.outcomes == [.unchanged])
    }

    @Test(arguments: StoreBackend.available) func occurrencesAreRowsOfTheirOwnAndGoTogether(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let ids = (0..<3).map { DeviceEventKeys.remoteID(externalID: "SERIES", occurrenceDate: now.addingTimeInterval(Double($0) * 86_400)) }
        let pushed = try await catalog.applyDeviceEvents(
            ids.enumerated().map { upsert($1, at: Double($0) * 24, accountID: device.accountID) } + [upsert("SERIESX", accountID: device.accountID)],
            accountID: device.accountID, now: now)
        #expect(pushed.outcomes == [.ok, .ok, .ok, .ok])
        let gone = try await catalog.applyDeviceEvents(
            [DeviceEventWrite(remoteID: "SERIES", externalUpdatedAt: nil, change: .delete(allOccurrences: true))], accountID: device.accountID,
            now: now)
        #expect(gone.changes.deleted == 3)
        // An event whose identifier merely starts the same way is another event.
        #expect(try await catalog.mirroredEvents(accountID: device.accountID, includeDeleted: false).map(\.occurrence.remoteID) == ["SERIESX"])
    }

    @Test(arguments: StoreBackend.available) func anEventMovedToAnotherCalendarLeavesTheFirst(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        _ = try await catalog.applyDeviceEvents([upsert("A1", accountID: device.accountID)], accountID: device.accountID, now: now)
        let home = CalendarDescriptor(remoteID: "CAL-HOME", name: "Home")
        let moved = try await catalog.applyDeviceEvents(
            [upsert("A1", stamp: 2000, calendar: home, accountID: device.accountID)], accountID: device.accountID, now: now)
        #expect(moved.outcomes == [.ok])
        let live = try await catalog.mirroredEvents(accountID: device.accountID, includeDeleted: false)
        let calendars = try await catalog.calendars(accountID: device.accountID, ownerID: nil)
        #expect(live.count == 1 && calendars.first { $0.id == live.first?.calendarID }?.remoteID == "CAL-HOME")
    }

    @Test(arguments: StoreBackend.available) func aFulfilledRequestKeepsItsMeeting(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let request = EventOccurrence(
            remoteID: DeviceEventKeys.requestPrefix + "steno-abc@steno", meetingIdentity: "steno-abc@steno", title: "Recording",
            start: now, end: now.addingTimeInterval(600))
        _ = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: work, scope: .incremental, updatedResources: [ResourceUpdate(resource: request.remoteID, occurrences: [request])]),
            accountID: device.accountID, now: now)
        let requestRow = try #require(try await catalog.mirroredEvents(accountID: device.accountID, includeDeleted: false).first)
        let fulfilled = try await catalog.applyDeviceEvents(
            [upsert("NEW-1", title: "Recording", accountID: device.accountID, request: requestRow.id)], accountID: device.accountID, now: now)
        #expect(fulfilled.outcomes == [.ok])
        let live = try await catalog.mirroredEvents(accountID: device.accountID, includeDeleted: false)
        #expect(live.map(\.occurrence.remoteID) == ["NEW-1"] && live.first?.meetingID == requestRow.meetingID)
        // A later push of the event, without the request, stays in that meeting.
        _ = try await catalog.applyDeviceEvents(
            [upsert("NEW-1", title: "Recording (edited)", stamp: 5000, accountID: device.accountID)], accountID: device.accountID, now: now)
        #expect(try await catalog.mirroredEvents(accountID: device.accountID, includeDeleted: false).first?.meetingID == requestRow.meetingID)
    }

    @Test(arguments: StoreBackend.available) func theFeedPagesInChangeOrderAndSaysWhereToGoOn(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        _ = try await catalog.applyDeviceEvents(
            (0..<5).map { upsert("E\($0)", at: Double($0), accountID: device.accountID) }, accountID: device.accountID, now: now)
        var since: Int64 = 0
        var seen: [String] = []
        for _ in 0..<10 {
            let page = try await catalog.eventChanges(EventChangesQuery(since: since, limit: 2, includeDeleted: true, scope: .account(device.accountID)))
            seen += page.events.map(\.occurrence.remoteID)
            since = page.serverTime
            if !page.hasMore { break }
        }
        #expect(seen == ["E0", "E1", "E2", "E3", "E4"])
        _ = try await catalog.applyDeviceEvents(
            [DeviceEventWrite(remoteID: "E2", externalUpdatedAt: nil, change: .delete(allOccurrences: true))], accountID: device.accountID, now: now)
        let withoutDeleted = try await catalog.eventChanges(EventChangesQuery(since: since, limit: 10, includeDeleted: false, scope: .account(device.accountID)))
        #expect(withoutDeleted.events.isEmpty && withoutDeleted.serverTime > since)
        let deletions = try await catalog.eventChanges(EventChangesQuery(since: since, limit: 10, includeDeleted: true, scope: .account(device.accountID)))
        #expect(deletions.events.map(\.occurrence.remoteID) == ["E2"] && deletions.events.first?.deletedAt != nil)
    }

    @Test(arguments: StoreBackend.available) func aDeviceSeesOnlyWhatItsOwnerMaySee(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let bob = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let bobsPhone = try await catalog.addDevice(ownerID: bob.id, label: "pixel", timeZone: "UTC", tokenHash: Data([7]), now: now)
        let secondPhone = try await catalog.addDevice(ownerID: device.ownerID, label: "ipad", timeZone: "UTC", tokenHash: Data([8]), now: now)
        _ = try await catalog.applyDeviceEvents([upsert("ALICE-1", accountID: device.accountID)], accountID: device.accountID, now: now)
        _ = try await catalog.applyDeviceEvents([upsert("BOB-1", accountID: bobsPhone.accountID)], accountID: bobsPhone.accountID, now: now)
        // Bob's event inviting alice is hers to see too.
        var invite = upsert("BOB-2", accountID: bobsPhone.accountID)
        if case .upsert(let calendar, var occurrence, let request) = invite.change {
            occurrence.attendees = [Attendee(email: "alice@example.com")]
            invite.change = .upsert(calendar: calendar, occurrence: occurrence, request: request)
        }
        _ = try await catalog.applyDeviceEvents([invite], accountID: bobsPhone.accountID, now: now)
        // A request for alice's iPad is not for her iPhone.
        let request = EventOccurrence(
            remoteID: DeviceEventKeys.requestPrefix + "steno-x@steno", meetingIdentity: "steno-x@steno", title: "Recording", start: now,
            end: now.addingTimeInterval(60))
        _ = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: work, scope: .incremental, updatedResources: [ResourceUpdate(resource: request.remoteID, occurrences: [request])]),
            accountID: secondPhone.accountID, now: now)
        func feed(_ phone: DeviceRecord) async throws -> Set<String> {
            Set(
                try await catalog.eventChanges(
                    EventChangesQuery(since: 0, limit: 100, includeDeleted: true, scope: .visibleTo(ownerID: phone.ownerID, deviceAccountID: phone.accountID))
                ).events.map(\.occurrence.remoteID))
        }
        #expect(try await feed(device) == ["ALICE-1", "BOB-2"])
        #expect(try await feed(secondPhone) == ["ALICE-1", "BOB-2", request.remoteID])
        #expect(try await feed(bobsPhone) == ["BOB-1", "BOB-2"])
    }

    /// Writers commit while a reader follows `since`: the reader ends with every row's last
    /// version, none missed, none repeated once caught up.
    @Test(arguments: StoreBackend.available) func aReaderFollowingTheFeedMissesNothingWhileWritersCommit(backend: StoreBackend) async throws {
        let (catalog, device, opened) = try await setUp(backend)
        defer { withExtendedLifetime(opened) {} }
        let accountID = device.accountID
        let writes = 60
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for round in 0..<writes {
                        let id = "W\(writer)-\(round % 7)"
                        _ = try await catalog.applyDeviceEvents(
                            [upsert(id, title: "v\(round)", at: Double(round), stamp: Int64(round + 1), accountID: accountID)],
                            accountID: accountID, now: Date())
                    }
                }
            }
            var since: Int64 = 0
            var latest: [String: String] = [:]
            // Bounded: the writers finish after 240 commits; the reader stops when they have.
            for _ in 0..<100_000 {
                let page = try await catalog.eventChanges(EventChangesQuery(since: since, limit: 5, includeDeleted: true, scope: .account(accountID)))
                for event in page.events { latest[event.occurrence.remoteID] = event.occurrence.title }
                #expect(page.serverTime >= since)
                since = page.serverTime
                if !page.hasMore, page.events.isEmpty, try await clock(opened) == since, latest.count == 28 {
                    let stored = try await catalog.mirroredEvents(accountID: accountID, includeDeleted: true)
                    if Dictionary(uniqueKeysWithValues: stored.map { ($0.occurrence.remoteID, $0.occurrence.title) }) == latest { break }
                }
                await Task.yield()
            }
            try await group.waitForAll()
            // Caught up: reading on from `since` brings nothing new.
            let tail = try await catalog.eventChanges(EventChangesQuery(since: since, limit: 100, includeDeleted: true, scope: .account(accountID)))
            for event in tail.events { latest[event.occurrence.remoteID] = event.occurrence.title }
            let stored = try await catalog.mirroredEvents(accountID: accountID, includeDeleted: true)
            #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.occurrence.remoteID, $0.occurrence.title) }) == latest)
        }
    }
}
