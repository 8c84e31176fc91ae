import AsyncHTTPClient
import Foundation
import StenoTestTraits
import StenoTesting
import Testing

@Suite("Tests that block threads", .blocksThreads)
struct BlocksThreadsTraitTests {
    @Test("A blocking test runs on a thread of its own, not on the shared pool")
    func runsOnItsOwnThread() {
        #expect(DedicatedTaskExecutor.isCurrentThreadDedicated)
    }

    @Test("A blocking test may shut an HTTP client down synchronously (its thread is no event loop)")
    func mayShutAClientDownSynchronously() throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        try client.syncShutdown()
    }

    @Test("No more than the limit run at once; the rest wait their turn and all run")
    func slotsBoundConcurrency() async throws {
        let slots = BlockingTestSlots(limit: 2)
        let gate = Gate()
        let finished = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await slots.withSlot { await gate.wait() }
                    return 1
                }
            }
            let queued = await waitFor(within: .seconds(60)) {
                let occupancy = await slots.occupancy
                return occupancy.running == 2 && occupancy.waiting == 1
            }
            let seen = await slots.occupancy
            #expect(queued, "running \(seen.running), waiting \(seen.waiting)")
            await gate.open()
            return try await group.reduce(0, +)
        }
        #expect(finished == 3)
        let occupancy = await slots.occupancy
        #expect(occupancy.running == 0 && occupancy.waiting == 0)
    }
}

/// Holds every waiter until opened.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// Asks `condition` until it holds or `limit` passes, yielding between asks.
private func waitFor(within limit: Duration, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}
