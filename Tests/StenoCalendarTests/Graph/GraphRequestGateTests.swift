import Foundation
import Synchronization
import Testing

@testable import StenoCalendar

/// The per-mailbox gate with slots shared through a catalog: two daemons' gates together
/// never have more than four requests in flight for one mailbox, and a daemon keeps a slot
/// for its next request instead of taking it again for each.
@Suite("Graph request gate shared by daemons")
struct GraphRequestGateTests {
    /// Leases in memory, as the catalog's `leases` table holds them: one holder per name.
    final class MemoryLeases: Sendable {
        let holders = Mutex<[String: String]>([:])
        /// Slots taken that were free (renewals not counted).
        let acquisitions = Mutex(0)

        func slots(for holder: String) -> some SharedMailboxSlots { Slots(leases: self, holder: holder) }

        struct Slots: SharedMailboxSlots {
            let leases: MemoryLeases
            let holder: String
            var leaseDuration: Duration { .seconds(30) }

            func acquire(mailbox: String, slot: Int) async throws -> Bool {
                let taken = leases.holders.withLock { all in
                    let name = "\(mailbox)#\(slot)"
                    guard all[name] == nil || all[name] == holder else { return false }
                    if all[name] == nil { leases.acquisitions.withLock { $0 += 1 } }
                    all[name] = holder
                    return true
                }
                return taken
            }

            func release(mailbox: String, slot: Int) async {
                _ = leases.holders.withLock { all in
                    all["\(mailbox)#\(slot)"] == holder ? all.removeValue(forKey: "\(mailbox)#\(slot)") : nil
                }
            }
        }
    }

    /// Requests in flight across both gates, and the most at once.
    final class InFlight: Sendable {
        let counts = Mutex((now: 0, peak: 0))
        func run() async throws {
            counts.withLock {
                $0.now += 1
                $0.peak = max($0.peak, $0.now)
            }
            defer { counts.withLock { $0.now -= 1 } }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func twoDaemonsTogetherKeepToFourRequestsPerMailbox() async throws {
        let leases = MemoryLeases()
        // The first daemon keeps a freed slot a while; the second gives it back at once.
        let first = GraphRequestGate(limit: 4, shared: leases.slots(for: "a/1"), linger: .milliseconds(20))
        let second = GraphRequestGate(limit: 4, shared: leases.slots(for: "b/2"), linger: .milliseconds(1))
        let inFlight = InFlight()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<120 {
                let gate = index.isMultiple(of: 2) ? first : second
                group.addTask { try await gate.run(mailbox: "app/bob@contoso.com") { try await inFlight.run() } }
            }
            try await group.waitForAll()
        }
        #expect(inFlight.counts.withLock { $0.peak } <= 4)
        #expect(inFlight.counts.withLock { $0.peak } >= 2, "both daemons' requests overlapped")
        // A slot freed is kept for the next request: far fewer slots taken than requests.
        #expect(leases.acquisitions.withLock { $0 } < 90, "\(leases.acquisitions.withLock { $0 }) slots taken for 120 requests")
    }

    @Test func aSlotHeldElsewhereMakesTheSyncWaitAndThenRetryLater() async throws {
        let leases = MemoryLeases()
        let other = leases.slots(for: "b/2")
        for slot in 0..<4 { #expect(try await other.acquire(mailbox: "app/bob@contoso.com", slot: slot)) }
        let gate = GraphRequestGate(limit: 4, shared: leases.slots(for: "a/1"), maximumWait: .milliseconds(300))
        await #expect(throws: CalendarSyncError.self) { try await gate.run(mailbox: "app/bob@contoso.com") { 1 } }
        // Another mailbox is not held up.
        #expect(try await gate.run(mailbox: "app/carol@contoso.com") { 2 } == 2)
        // One slot given back: the next request takes it.
        await other.release(mailbox: "app/bob@contoso.com", slot: 2)
        #expect(try await gate.run(mailbox: "app/bob@contoso.com") { 3 } == 3)
    }
}
