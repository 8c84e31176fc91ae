import Foundation
import StenoCatalog
import StenoCore
import Testing

/// Device sign-ins in the catalog behave the same on both backends: recorded pending, read
/// back with their sealed request, finished once, and removed once they ended long ago.
@Suite("Device sign-ins")
struct DeviceSignInStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func signIn(_ id: String, ownerID: Int64, expiresIn seconds: TimeInterval = 900) -> DeviceSignInRecord {
        DeviceSignInRecord(
            id: id, ownerID: ownerID, sealedRequest: Data([0, 1, 2, 0xFF] + Array("sealed".utf8)), createdAt: now,
            expiresAt: now.addingTimeInterval(seconds))
    }

    @Test(arguments: StoreBackend.available)
    func aSignInIsRecordedFinishedOnceAndRemovedLater(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let owner = try await store.addUser(UserDraft(name: "alice"))
        try await store.addDeviceSignIn(signIn("a", ownerID: owner.id))
        await #expect(throws: StoreError.self) { try await store.addDeviceSignIn(signIn("a", ownerID: owner.id)) }
        #expect(try await store.deviceSignIn(id: "nope") == nil)

        let pending = try #require(try await store.deviceSignIn(id: "a"))
        #expect(pending == signIn("a", ownerID: owner.id), "the sealed request comes back byte for byte, pending")

        // The first finish wins; a second daemon's finish changes nothing.
        #expect(try await store.finishDeviceSignIn(id: "a", outcome: .succeeded(accountID: 7, jobID: 9), now: now.addingTimeInterval(30)))
        #expect(try await !store.finishDeviceSignIn(id: "a", outcome: .failed("late"), now: now.addingTimeInterval(31)))
        let finished = try #require(try await store.deviceSignIn(id: "a"))
        #expect(finished.outcome == .succeeded(accountID: 7, jobID: 9) && finished.finishedAt == now.addingTimeInterval(30))

        try await store.addDeviceSignIn(signIn("b", ownerID: owner.id, expiresIn: 60))
        #expect(try await store.finishDeviceSignIn(id: "b", outcome: .failed("declined"), now: now.addingTimeInterval(5)))
        #expect(try await store.deviceSignIn(id: "b")?.outcome == .failed("declined"))
        try await store.addDeviceSignIn(signIn("c", ownerID: owner.id, expiresIn: 600))

        // Listed: what did not succeed, newest first, per owner or for everyone.
        let other = try await store.addUser(UserDraft(name: "zoe"))
        try await store.addDeviceSignIn(signIn("z", ownerID: other.id, expiresIn: 600))
        #expect(try await store.unfinishedDeviceSignIns(ownerID: owner.id).map(\.id) == ["b", "c"])
        #expect(try await store.unfinishedDeviceSignIns(ownerID: owner.id).first?.outcome == .failed("declined"))
        #expect(Set(try await store.unfinishedDeviceSignIns(ownerID: nil).map(\.id)) == ["b", "c", "z"])

        // Succeeded (or expired while pending) before the cut-off: removed; a failure stays
        // until its own, later cut-off, for a person to read why.
        #expect(try await store.removeDeviceSignIns(endedBefore: now.addingTimeInterval(601), failedBefore: now) == 3)
        #expect(try await store.deviceSignIn(id: "a") == nil)
        #expect(try await store.deviceSignIn(id: "c") == nil)
        #expect(try await store.deviceSignIn(id: "b")?.outcome == .failed("declined"))
        #expect(try await store.removeDeviceSignIns(endedBefore: now, failedBefore: now.addingTimeInterval(6)) == 1)
        #expect(try await store.deviceSignIn(id: "b") == nil)
    }

    @Test(arguments: StoreBackend.available)
    func removingTheOwnerRemovesTheirSignIns(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let owner = try await store.addUser(UserDraft(name: "bob"))
        try await store.addDeviceSignIn(signIn("d", ownerID: owner.id))
        _ = try await store.removeUser(id: owner.id)
        #expect(try await store.deviceSignIn(id: "d") == nil)
    }
}
