import Foundation
import StenoCatalog
import Testing

/// Named leases behave the same on both backends: one holder at a time, renewals, take-over
/// after expiry, release.
@Suite("Leases")
struct LeaseStoreTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: StoreBackend.available)
    func oneHolderAtATimeUntilItRunsOut(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let lease = "inbox:/srv/steno/inbox"
        #expect(try await store.acquireLease(lease, holder: "a/1", duration: .seconds(30), now: now))
        #expect(try await !store.acquireLease(lease, holder: "b/2", duration: .seconds(30), now: now.addingTimeInterval(10)))
        // The holder renews; the other still waits.
        #expect(try await store.acquireLease(lease, holder: "a/1", duration: .seconds(30), now: now.addingTimeInterval(20)))
        #expect(try await !store.acquireLease(lease, holder: "b/2", duration: .seconds(30), now: now.addingTimeInterval(45)))
        // The holder dies: once the renewed lease runs out, the other takes it.
        #expect(try await store.acquireLease(lease, holder: "b/2", duration: .seconds(30), now: now.addingTimeInterval(50)))
        #expect(try await !store.acquireLease(lease, holder: "a/1", duration: .seconds(30), now: now.addingTimeInterval(51)))
        // Released, it is free at once; another lease name is unaffected.
        try await store.releaseLease(lease, holder: "b/2")
        #expect(try await store.acquireLease(lease, holder: "a/1", duration: .seconds(30), now: now.addingTimeInterval(52)))
        #expect(try await store.acquireLease("inbox:/other", holder: "b/2", duration: .seconds(30), now: now.addingTimeInterval(52)))
        // Releasing a lease one does not hold changes nothing.
        try await store.releaseLease(lease, holder: "b/2")
        #expect(try await !store.acquireLease(lease, holder: "b/2", duration: .seconds(30), now: now.addingTimeInterval(53)))
    }
}
