import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// `people.show` and `people.forget` as callers meet them: admins only, one address checked,
/// and the erasure logged without the address it erased.
@Suite("People methods: access and erasure")
struct PeopleMethodTests {
    let root = NSTemporaryDirectory() + "steno-people-" + UUID().uuidString

    func call(_ user: User?, uid: UInt32, admin: Bool) -> RPCCall {
        RPCCall(
            caller: Caller(credentials: PeerCredentials(pid: 1, uid: uid, gid: uid), user: user, role: admin ? .admin : .member),
            logger: Logger(label: "test"), method: "test")
    }

    @Test func onlyAdminsSeeOrForgetAPerson() throws {
        var table = RPCMethodTable()
        PeopleMethods(store: UnusedPeopleStore()).register(in: &table)
        let member = call(User(id: 2, name: "bob", uids: [1000]), uid: 1000, admin: false).caller
        for method in [StenoMethods.peopleShow.name, StenoMethods.peopleForget.name] {
            let entry = try #require(table[method])
            #expect(throws: RPCError.self, "\(method)") { try RPCDispatcher.authorize(member, for: entry.access, method: method) }
        }
    }

    @Test func anAddressIsCheckedBeforeAnythingIsErased() throws {
        #expect(try PeopleMethods.address("  Dana@Example.COM ") == "dana@example.com")
        for bad in ["", "dana", "@example.com", "dana@", "da na@example.com", "a@b@c", "dana@example.com\u{1B}[2J"] {
            #expect(throws: RPCError.self, "\(bad.debugDescription)") { try PeopleMethods.address(bad) }
        }
        let redacted = ForgottenPerson.redactedAddress(key: ForgottenPerson.key(of: "dana@example.com"))
        #expect(throws: RPCError.self, "a redacted entry names no one") { try PeopleMethods.address(redacted) }
    }

    @Test func theErasureIsLoggedUnderTheRedactedAddress() async throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let ada = try await catalog.addUser(UserDraft(name: "ada", role: .admin))
        let owner = try await catalog.addUser(UserDraft(name: "alice", emails: ["alice@example.com"]))
        let account = try await catalog.addAccount(CalendarAccountDraft(provider: .ics, ownerID: owner.id, displayName: "team"), now: Date())
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var changes = CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "team", name: "Team"), scope: .complete)
        changes.updatedResources = [
            ResourceUpdate(
                resource: "standup", occurrences: [
                    EventOccurrence(
                        remoteID: "standup", iCalUID: "standup", meetingIdentity: "standup", title: "Standup", start: start,
                        end: start.addingTimeInterval(900), organizer: Attendee(email: "alice@example.com", name: "Alice", role: .organizer),
                        attendees: [Attendee(email: "dana@example.com", name: "Dana Scully")])
                ])
        ]
        _ = try await catalog.applyCalendarChanges(changes, accountID: account.id, now: start)

        let methods = PeopleMethods(store: catalog)
        let admin = call(ada, uid: 0, admin: true)
        #expect(try await catalog.person(email: "dana@example.com").names == ["Dana Scully"])
        let report = try await methods.forget("dana@example.com", call: admin)
        #expect(report.events == 1 && report.meetings == 1 && report.user == nil)
        let entries = try await catalog.accessLog(AccessLogQuery(limit: 10))
        #expect(entries.map(\.action) == [.forget] && entries.first?.detail == report.redactedAddress && entries.first?.actor == "ada")
        let logged = String(decoding: try JSONEncoder().encode(entries), as: UTF8.self)
        #expect(!logged.contains("dana") && !logged.contains("Scully"), "the log never holds the person it erased")
    }
}

/// A store no test here reaches: registering the methods needs one.
struct UnusedPeopleStore: PeopleStore, AccessLogStore {
    func person(email: String) async throws -> PersonRecord { throw StoreError.invalid("unused") }
    func forget(email: String, now: Date) async throws -> ForgetReport { throw StoreError.invalid("unused") }
    func logAccess(_ draft: AccessDraft) async throws {}
    func accessLog(_ query: AccessLogQuery) async throws -> [AccessEntry] { [] }
    func pruneAccessLog(before cutoff: Date) async throws -> Int { 0 }
}
