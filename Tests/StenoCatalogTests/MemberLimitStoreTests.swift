import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

/// What a member may own: counted and added in one transaction in both dialects, so requests
/// sent at once cannot pass the limit; admins are not limited.
@Suite("Member limits: accounts, devices, live pairing codes")
struct MemberLimitStoreTests {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let devices = MemberLimit(.devices, maximum: 2, setting: "[members] max_devices")
    let codes = MemberLimit(.pairingCodes, maximum: 3, setting: "[members] max_pairing_codes")
    let accounts = MemberLimit(.calendarAccounts, maximum: 2, setting: "[members] max_calendar_accounts")

    func ics(_ name: String, owner: Int64) -> CalendarAccountDraft {
        CalendarAccountDraft(provider: .ics, ownerID: owner, displayName: name, settings: ["url": "https://example.com/\(name).ics"])
    }

    /// Runs `add` and says whether the store refused it for the limit (any other error fails the test).
    func refused(_ add: () async throws -> Void) async throws -> String? {
        do {
            try await add()
            return nil
        } catch StoreError.failedPrecondition(let message) {
            return message
        }
    }

    @Test(arguments: StoreBackend.available) func aMemberGetsUpToTheLimitOfDevicesAndARevokedOneFreesASlot(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let bob = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let first = try await catalog.addDevice(ownerID: bob.id, label: "phone", timeZone: "UTC", tokenHash: Data([1]), limit: devices, now: now)
        _ = try await catalog.addDevice(ownerID: bob.id, label: "tablet", timeZone: "UTC", tokenHash: Data([2]), limit: devices, now: now)
        let refusal = try await refused {
            _ = try await catalog.addDevice(ownerID: bob.id, label: "watch", timeZone: "UTC", tokenHash: Data([3]), limit: devices, now: now)
        }
        #expect(refusal?.contains("bob has 2 devices, the most a member may have ([members] max_devices = 2)") == true, "\(refusal ?? "")")
        _ = try await catalog.revokeDevice(id: first.id, now: now)
        _ = try await catalog.addDevice(ownerID: bob.id, label: "watch", timeZone: "UTC", tokenHash: Data([3]), limit: devices, now: now)
        #expect(try await catalog.devices(ownerID: bob.id, afterID: nil, limit: 10).count == 3)
    }

    @Test(arguments: StoreBackend.available) func adminsAreNotLimited(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let root = try await catalog.addUser(UserDraft(name: "root", emails: ["root@example.com"], role: .admin))
        for index in 0..<4 {
            _ = try await catalog.addDevice(
                ownerID: root.id, label: "d\(index)", timeZone: "UTC", tokenHash: Data([UInt8(index)]), limit: devices, now: now)
            _ = try await catalog.addAccount(ics("cal\(index)", owner: root.id), limit: accounts, now: now)
        }
        #expect(try await catalog.devices(ownerID: root.id, afterID: nil, limit: 10).count == 4)
    }

    @Test(arguments: StoreBackend.available) func devicesOwnAccountsDoNotCountAsCalendarAccounts(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let bob = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        _ = try await catalog.addDevice(ownerID: bob.id, label: "phone", timeZone: "UTC", tokenHash: Data([1]), now: now)
        _ = try await catalog.addAccount(ics("one", owner: bob.id), limit: accounts, now: now)
        _ = try await catalog.addAccount(ics("two", owner: bob.id), limit: accounts, now: now)
        let refusal = try await refused { _ = try await catalog.addAccount(ics("three", owner: bob.id), limit: accounts, now: now) }
        #expect(refusal?.contains("bob has 2 calendar accounts") == true, "\(refusal ?? "")")
        #expect(refusal?.contains("steno accounts remove ID") == true)
    }

    /// Twenty codes asked for at once: three are issued, whichever daemon connection runs first.
    @Test(arguments: StoreBackend.available) func codesAskedForAtOnceStopAtTheLimit(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let bob = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let (codes, now) = (self.codes, self.now)
        let issued = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    do {
                        try await catalog.addPairing(
                            codeHash: Data([UInt8(index)]), ownerID: bob.id, label: nil, timeZone: nil, expiresAt: now.addingTimeInterval(600),
                            limit: codes, now: now)
                        return true
                    } catch StoreError.failedPrecondition {
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(issued == 3)
        // Expired and used codes do not count.
        let later = now.addingTimeInterval(601)
        try await catalog.addPairing(
            codeHash: Data([100]), ownerID: bob.id, label: nil, timeZone: nil, expiresAt: later.addingTimeInterval(600), limit: codes, now: later)
        _ = try await catalog.redeemPairing(codeHash: Data([100]), tokenHash: Data([7]), label: "x", timeZone: "UTC", now: later)
        for index in 101..<104 {
            try await catalog.addPairing(
                codeHash: Data([UInt8(index)]), ownerID: bob.id, label: nil, timeZone: nil, expiresAt: later.addingTimeInterval(600),
                limit: codes, now: later)
        }
    }

    @Test(arguments: StoreBackend.available) func aCodeBeyondTheDeviceLimitIsKeptForLater(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let bob = try await catalog.addUser(UserDraft(name: "bob", emails: ["bob@example.com"]))
        let first = try await catalog.addDevice(ownerID: bob.id, label: "phone", timeZone: "UTC", tokenHash: Data([1]), now: now)
        _ = try await catalog.addDevice(ownerID: bob.id, label: "tablet", timeZone: "UTC", tokenHash: Data([2]), now: now)
        try await catalog.addPairing(
            codeHash: Data([9]), ownerID: bob.id, label: "watch", timeZone: nil, expiresAt: now.addingTimeInterval(600), now: now)
        let refusal = try await refused {
            _ = try await catalog.redeemPairing(codeHash: Data([9]), tokenHash: Data([3]), label: "x", timeZone: "UTC", deviceLimit: devices, now: now)
        }
        #expect(refusal?.contains("revoke one (steno devices revoke ID)") == true, "\(refusal ?? "")")
        _ = try await catalog.revokeDevice(id: first.id, now: now)
        let paired = try await catalog.redeemPairing(codeHash: Data([9]), tokenHash: Data([3]), label: "x", timeZone: "UTC", deviceLimit: devices, now: now)
        #expect(paired?.label == "watch", "the code was not spent by the refusal")
    }
}
