import Foundation
import StenoCore
import Testing

import StenoPostgres
@testable import StenoCatalog
@testable import StenoSQLite

/// `setCalendarEnabled`: a disabled calendar's events are tombstoned (meetings kept for the
/// links' revalidation), its state cleared, and change sets for it dropped until it is enabled.
@Suite("Calendars enabled and disabled")
struct CalendarSwitchStoreTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let work = CalendarDescriptor(remoteID: "me/calendars/work", name: "Work")
    let home = CalendarDescriptor(remoteID: "me", name: "Home")

    func update(_ id: String, hour: Double) -> ResourceUpdate {
        let start = now.addingTimeInterval(hour * 3600)
        let occurrence = EventOccurrence(
            remoteID: id, iCalUID: "uid-\(id)", seriesUID: "uid-\(id)", meetingIdentity: MeetingIdentity.iCalendar(uid: "uid-\(id)", recurrenceID: nil),
            title: id, start: start, end: start.addingTimeInterval(1800))
        return ResourceUpdate(resource: id, etag: "ck-\(hour)", occurrences: [occurrence])
    }

    @Test(arguments: StoreBackend.available) func aDisabledCalendarIsEmptiedAndIgnoredUntilEnabled(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        defer { withExtendedLifetime(opened) {} }
        let catalog = opened.store
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(provider: .graph, ownerID: alice.id, displayName: "alice@example.com", settings: [:]), now: now)
        for (calendar, id) in [(work, "w1"), (home, "h1")] {
            _ = try await catalog.applyCalendarChanges(
                CalendarChangeSet(calendar: calendar, scope: .incremental, updatedResources: [update(id, hour: 1)], syncState: "{\"d\":1}"),
                accountID: account.id, now: now)
        }
        let stored = try #require(try await catalog.calendars(accountID: account.id, ownerID: nil).first { $0.remoteID == work.remoteID })
        #expect(stored.isEnabled && stored.eventCount == 1 && stored.syncState != nil)

        let disabled = try await catalog.setCalendarEnabled(id: stored.id, enabled: false, now: now.addingTimeInterval(60))
        #expect(!disabled.isEnabled && disabled.eventCount == 0 && disabled.syncState == nil)
        let events = try await catalog.mirroredEvents(accountID: account.id, includeDeleted: true)
        #expect(events.first { $0.occurrence.remoteID == "w1" }.map { $0.deletedAt != nil && $0.meetingID != nil } == true)
        #expect(events.first { $0.occurrence.remoteID == "h1" }?.deletedAt == nil)
        #expect(try await catalog.linksTouchedByEvents(changedSince: now.addingTimeInterval(59)).isEmpty)
        #expect(try await catalog.changedEventSpan(since: now.addingTimeInterval(59)) != nil, "the tombstones are changes the links see")

        // A sync still under way when it was disabled changes nothing.
        let late = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: work, scope: .incremental, updatedResources: [update("w2", hour: 2)], syncState: "{\"d\":2}"),
            accountID: account.id, now: now.addingTimeInterval(120))
        #expect(late.inserted == 0)
        #expect(try await catalog.calendars(accountID: account.id, ownerID: nil).first { $0.id == stored.id }?.syncState == nil)

        let enabled = try await catalog.setCalendarEnabled(id: stored.id, enabled: true, now: now.addingTimeInterval(180))
        #expect(enabled.isEnabled && enabled.syncState == nil)
        let again = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: work, scope: .incremental, updatedResources: [update("w1", hour: 1)]),
            accountID: account.id, now: now.addingTimeInterval(240))
        #expect(again.inserted + again.updated == 1)
        #expect(try await catalog.calendars(accountID: account.id, ownerID: nil).first { $0.id == stored.id }?.eventCount == 1)
        await #expect(throws: StoreError.self) { try await catalog.setCalendarEnabled(id: 9999, enabled: false, now: now) }
    }
}
