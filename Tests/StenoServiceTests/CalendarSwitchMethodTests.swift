import Foundation
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// `calendars.disable` / `calendars.enable`: members switch only the calendars of their own
/// accounts (others' are not found), admins any; each switch queues its follow-up job once.
@Suite("Calendar switches: who may, and what they queue")
struct CalendarSwitchMethodTests {
    let root = NSTemporaryDirectory() + "steno-switch-" + UUID().uuidString

    @Test func membersSwitchTheirOwnCalendarsAdminsAny() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await store.addUser(UserDraft(name: "alice", emails: ["alice@example.com"], uids: [5001]))
        let bob = try await store.addUser(UserDraft(name: "bob", emails: ["bob@example.com"], uids: [5002]))
        var calendars: [Int64: Int64] = [:]
        for user in [alice, bob] {
            let account = try await store.addAccount(
                CalendarAccountDraft(provider: .graph, ownerID: user.id, displayName: user.name, settings: [:]), now: Date())
            _ = try await store.applyCalendarChanges(
                CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "me", name: user.name), scope: .incremental), accountID: account.id,
                now: Date())
            calendars[user.id] = try #require(try await store.calendars(accountID: account.id, ownerID: nil).first?.id)
        }
        let methods = AccountMethods(store: store, queue: JobQueue(store: store), secrets: nil, providers: [.graph])
        let asBob = Caller(credentials: PeerCredentials(pid: 1, uid: 5002, gid: 5002), user: bob, role: .member)
        let asAdmin = Caller(credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), user: nil, role: .admin)
        let alicesCalendar = try #require(calendars[alice.id])
        let bobsCalendar = try #require(calendars[bob.id])

        await #expect(throws: StoreError.self) { try await methods.setEnabled(false, calendarID: alicesCalendar, caller: asBob) }
        #expect(try await store.calendars(accountID: nil, ownerID: alice.id).first?.isEnabled == true)

        let disabled = try await methods.setEnabled(false, calendarID: bobsCalendar, caller: asBob)
        #expect(!disabled.calendar.enabled && disabled.job != nil)
        #expect(try await store.job(id: disabled.job ?? 0).kind == LinksAfterSyncJob.name)
        #expect(try await methods.setEnabled(false, calendarID: bobsCalendar, caller: asBob).job == nil, "disabled already: nothing queued")

        let enabled = try await methods.setEnabled(true, calendarID: bobsCalendar, caller: asAdmin)
        let syncJob = try await store.job(id: enabled.job ?? 0)
        #expect(enabled.calendar.enabled && syncJob.kind == CalendarSyncJob.name)
        #expect(try await methods.setEnabled(false, calendarID: alicesCalendar, caller: asAdmin).calendar.enabled == false)
    }
}
