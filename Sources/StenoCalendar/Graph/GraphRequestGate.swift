import Foundation

/// At most N requests in flight per mailbox: Exchange throttles a mailbox that sees more than
/// four concurrent requests from one application (MailboxConcurrency), answering 429.
///
/// One gate serves a whole daemon (every account's syncs, lookups and writes), keyed by
/// application and mailbox. With ``SharedMailboxSlots`` the limit holds across the daemons
/// sharing a catalog: each request needs one of the mailbox's N slots, held as a short lease
/// in the catalog. A slot freed by a request stays with this daemon for ``linger`` before it
/// goes back, so a sync reading page after page, or a batch of lookups, takes it once rather
/// than once per request; held slots are renewed every third of their lease.
actor GraphRequestGate {
    private let limit: Int
    private let shared: (any SharedMailboxSlots)?
    /// How long a freed slot is kept for this daemon's next request.
    private let linger: Duration
    /// How long a request waits for a slot other daemons hold before the sync gives up for now.
    private let maximumWait: Duration
    /// A slot held this long goes back when freed, even with requests waiting here, so a
    /// long sync on one daemon does not keep a mailbox from the others.
    private let maximumHold: Duration

    private struct Mailbox {
        var busy: Set<Int> = []
        /// Free slots this daemon holds, with when they were freed.
        var idle: [Int: ContinuousClock.Instant] = [:]
        /// Slots being taken in the catalog right now.
        var taking: Set<Int> = []
        /// Held slots whose renewal was refused: dropped once free.
        var lost: Set<Int> = []
        /// When this daemon took each slot it holds from the catalog.
        var heldSince: [Int: ContinuousClock.Instant] = [:]
        var waiting: [CheckedContinuation<Int?, Never>] = []
        /// A request is asking the catalog for a slot; the others wait for it.
        var probing = false
        var isEmpty: Bool { busy.isEmpty && idle.isEmpty && taking.isEmpty && waiting.isEmpty && !probing }
    }

    private var mailboxes: [String: Mailbox] = [:]
    private var renewer: Task<Void, Never>?

    /// The most requests seen in flight for one mailbox (tests check the limit held).
    private(set) var peak = 0

    init(
        limit: Int, shared: (any SharedMailboxSlots)? = nil, linger: Duration = .seconds(2), maximumWait: Duration = .seconds(120),
        maximumHold: Duration = .seconds(10)
    ) {
        self.limit = max(1, limit)
        self.shared = shared
        self.linger = linger
        self.maximumWait = maximumWait
        self.maximumHold = maximumHold
    }

    /// Runs `body` once the mailbox has a free slot.
    ///
    /// - Throws: ``CalendarSyncError/retryLater(after:reason:)`` when other daemons held every
    ///   slot for ``maximumWait``; what `body` throws.
    func run<T: Sendable>(mailbox: String, _ body: @Sendable () async throws -> T) async throws -> T {
        let slot = try await acquire(mailbox)
        defer { release(mailbox, slot) }
        return try await body()
    }

    private func acquire(_ mailbox: String) async throws -> Int {
        while true {
            var state = mailboxes[mailbox, default: Mailbox()]
            if let slot = state.idle.keys.min() {
                state.idle[slot] = nil
                return take(slot, mailbox, &state)
            }
            let free = (0..<limit).filter { !state.busy.contains($0) && !state.taking.contains($0) }
            if let shared, !free.isEmpty, !state.probing {
                state.probing = true
                mailboxes[mailbox] = state
                let taken: Int?
                do {
                    taken = try await probe(mailbox, shared)
                } catch {
                    endProbing(mailbox)
                    throw error
                }
                endProbing(mailbox)
                if let taken { return taken }
                continue
            }
            if shared == nil, let slot = free.first { return take(slot, mailbox, &state) }
            // Every slot is in use here, or another request is asking the catalog: the next
            // request to finish hands its slot over, or the asking one lets this one look again.
            let handed = await withCheckedContinuation { continuation in
                mailboxes[mailbox, default: Mailbox()].waiting.append(continuation)
            }
            if let handed { return handed }
        }
    }

    /// Asks the catalog for one of the mailbox's slots no request here holds, again and again
    /// (one request per mailbox at a time, backing off) until one is taken, a slot came free
    /// here (nil: look again), or ``maximumWait`` passed.
    private func probe(_ mailbox: String, _ shared: any SharedMailboxSlots) async throws -> Int? {
        let deadline = ContinuousClock.now + maximumWait
        var pause = Duration.milliseconds(50)
        while true {
            var state = mailboxes[mailbox, default: Mailbox()]
            let free = (0..<limit).filter { !state.busy.contains($0) && !state.taking.contains($0) }
            guard state.idle.isEmpty, !free.isEmpty else { return nil }
            state.taking.formUnion(free)
            mailboxes[mailbox] = state
            var taken: Int?
            for slot in free where taken == nil {
                if (try? await shared.acquire(mailbox: mailbox, slot: slot)) == true { taken = slot }
            }
            state = mailboxes[mailbox, default: Mailbox()]
            state.taking.subtract(free)
            if let taken {
                state.heldSince[taken] = .now
                startRenewing()
                return take(taken, mailbox, &state)
            }
            mailboxes[mailbox] = state
            guard ContinuousClock.now < deadline else {
                throw CalendarSyncError.retryLater(
                    after: .seconds(30), reason: "other daemons held Microsoft Graph's \(limit) requests for \(mailbox) for \(maximumWait)")
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(1))
        }
    }

    /// The probing request is done: the others look again (for the slots still free).
    private func endProbing(_ mailbox: String) {
        mailboxes[mailbox]?.probing = false
        wakeWaiters(mailbox)
        if mailboxes[mailbox]?.isEmpty == true { mailboxes[mailbox] = nil }
    }

    private func take(_ slot: Int, _ mailbox: String, _ state: inout Mailbox) -> Int {
        state.busy.insert(slot)
        peak = max(peak, state.busy.count)
        mailboxes[mailbox] = state
        return slot
    }

    private func release(_ mailbox: String, _ slot: Int) {
        guard var state = mailboxes[mailbox] else { return }
        let heldTooLong = state.heldSince[slot].map { ContinuousClock.now - $0 >= maximumHold } ?? false
        if heldTooLong { state.lost.insert(slot) }
        if !state.waiting.isEmpty {
            let next = state.waiting.removeFirst()
            guard state.lost.contains(slot) else {
                // Handed over: the slot stays busy.
                mailboxes[mailbox] = state
                next.resume(returning: slot)
                return
            }
            next.resume(returning: nil)
        }
        state.busy.remove(slot)
        if let shared {
            if state.lost.remove(slot) != nil {
                state.heldSince[slot] = nil
                if heldTooLong {
                    // Not taken again here until the catalog has it back.
                    state.taking.insert(slot)
                    Task { [weak self] in
                        await shared.release(mailbox: mailbox, slot: slot)
                        await self?.gaveBack(mailbox, slot)
                    }
                }
            } else {
                let freedAt = ContinuousClock.now
                state.idle[slot] = freedAt
                let linger = self.linger
                Task { [weak self] in
                    try? await Task.sleep(for: linger)
                    await self?.giveBack(mailbox, slot, ifFreeSince: freedAt)
                }
            }
            mailboxes[mailbox] = state
        } else {
            mailboxes[mailbox] = state.isEmpty ? nil : state
        }
    }

    /// Returns a slot to the catalog when no request took it since it was freed.
    private func giveBack(_ mailbox: String, _ slot: Int, ifFreeSince freedAt: ContinuousClock.Instant) async {
        guard let shared, var state = mailboxes[mailbox], state.idle[slot] == freedAt else { return }
        state.idle[slot] = nil
        state.heldSince[slot] = nil
        // Not taken again here until the catalog has it back.
        state.taking.insert(slot)
        mailboxes[mailbox] = state
        await shared.release(mailbox: mailbox, slot: slot)
        gaveBack(mailbox, slot)
    }

    private func gaveBack(_ mailbox: String, _ slot: Int) {
        guard var state = mailboxes[mailbox] else { return }
        state.taking.remove(slot)
        mailboxes[mailbox] = state.isEmpty ? nil : state
        wakeWaiters(mailbox)
    }

    /// Lets every waiting request look for a slot again.
    private func wakeWaiters(_ mailbox: String) {
        guard let waiting = mailboxes[mailbox]?.waiting, !waiting.isEmpty else { return }
        mailboxes[mailbox]?.waiting = []
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    /// Renews every held slot every third of the lease while any is held.
    private func startRenewing() {
        guard renewer == nil, let shared else { return }
        renewer = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: shared.leaseDuration / 3)
                guard let self, await self.renewHeld(shared) else { return }
            }
        }
    }

    /// Renews the held slots; false (and the renewer ends) when none is held.
    private func renewHeld(_ shared: any SharedMailboxSlots) async -> Bool {
        let held = mailboxes.flatMap { name, state in state.busy.union(state.idle.keys).map { (name, $0) } }
        guard !held.isEmpty else {
            renewer = nil
            return false
        }
        for (mailbox, slot) in held {
            // Unreachable catalog: try again next time; the lease lasts three renewals.
            guard (try? await shared.acquire(mailbox: mailbox, slot: slot)) == false else { continue }
            guard var state = mailboxes[mailbox] else { continue }
            if state.idle.removeValue(forKey: slot) == nil, state.busy.contains(slot) {
                state.lost.insert(slot)
            } else {
                state.heldSince[slot] = nil
            }
            mailboxes[mailbox] = state.isEmpty ? nil : state
        }
        return true
    }
}

/// Request slots of mailboxes shared by the daemons of one catalog, held as leases.
///
/// The service provides it (StenoCalendar knows no store): slot `n` of a mailbox is a lease
/// named after both, taken for ``leaseDuration`` and renewed by the same call.
public protocol SharedMailboxSlots: Sendable {
    /// Takes slot `slot` of `mailbox` for this daemon, or renews it when this daemon holds it.
    /// Returns false when another daemon holds it.
    func acquire(mailbox: String, slot: Int) async throws -> Bool
    /// Gives a slot back so another daemon may take it at once.
    func release(mailbox: String, slot: Int) async
    /// How long a slot stays taken unless renewed.
    var leaseDuration: Duration { get }
}
