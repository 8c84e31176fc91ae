import Foundation
import StenoCore
import Synchronization
import Testing

@testable import StenoService

@Suite("Caller resolver")
struct CallerResolverTests {
    @Test("A lookup that read the users before they changed is not cached over the change")
    func aLookupOverlappingAChangeIsNotCached() async throws {
        let alice = User(id: 1, name: "alice", emails: [], uids: [1000], role: .member)
        let users = Mutex<User?>(nil)
        let firstLookUp = Gate()
        let calls = Mutex(0)
        let resolver = CallerResolver(daemonUID: 999) { _ in
            let before = users.withLock { $0 }
            if calls.withLock({ $0 += 1; return $0 }) == 1 { await firstLookUp.passed() }
            return before
        }
        let credentials = PeerCredentials(pid: 1, uid: 1000, gid: 1000)
        // A probe looks up uid 1000 before it is anyone's and is held there…
        let probe = Task { try await resolver.caller(for: credentials) }
        await firstLookUp.reached()
        // …while an admin adds alice with that uid, which invalidates the cache.
        users.withLock { $0 = alice }
        resolver.invalidate()
        await firstLookUp.open()
        #expect(try await probe.value.user == nil, "the probe itself answers from what it read")

        let next = try await resolver.caller(for: credentials)
        #expect(next.user?.name == "alice", "the probe's stale answer was cached over the change")
    }
}

/// Lets the test hold one lookup until it has changed the users.
private actor Gate {
    private var arrived: CheckedContinuation<Void, Never>?
    private var hasArrived = false
    private var held: CheckedContinuation<Void, Never>?
    private var isOpen = false

    /// Called by the lookup: says it is there, then waits until opened.
    func passed() async {
        hasArrived = true
        arrived?.resume()
        arrived = nil
        if isOpen { return }
        await withCheckedContinuation { held = $0 }
    }

    /// Waits until the lookup is held.
    func reached() async {
        if hasArrived { return }
        await withCheckedContinuation { arrived = $0 }
    }

    func open() {
        isOpen = true
        held?.resume()
        held = nil
    }
}
