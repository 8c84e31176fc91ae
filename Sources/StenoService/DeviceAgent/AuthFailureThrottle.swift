import Foundation
import Synchronization

/// Slows down addresses that keep presenting wrong tokens or pairing codes.
///
/// The first few failures cost nothing (a phone with an old token retries a little); after
/// that each failure shuts the address out for twice as long as the one before, up to a
/// minute, so guessing a pairing code in its ten minutes is hopeless. Failures count against
/// the address that made them and only pass with time: a success with one credential (a
/// member's own valid token) says nothing about the codes guessed beside it, so it forgets
/// nothing. Memory stays bounded: when the table is full, addresses quiet for the forgetting
/// time go first, then those not shut out, and an address shut out is dropped last.
final class AuthFailureThrottle: Sendable {
    struct Entry {
        var failures: Int
        var lastFailure: ContinuousClock.Instant
        var blockedUntil: ContinuousClock.Instant?
    }

    /// Failures allowed before the delays start.
    let freeFailures: Int
    let maximumDelay: Duration
    /// An address with no failure for this long starts again from zero.
    let forgetAfter: Duration
    /// Addresses remembered at most.
    let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(freeFailures: Int = 5, maximumDelay: Duration = .seconds(60), forgetAfter: Duration = .seconds(600), capacity: Int = 10_000) {
        self.freeFailures = freeFailures
        self.maximumDelay = maximumDelay
        self.forgetAfter = forgetAfter
        self.capacity = capacity
    }

    /// How long `address` must still wait; nil when it may try now.
    func delay(for address: String, now: ContinuousClock.Instant = .now) -> Duration? {
        entries.withLock { entries in
            guard let until = entries[address]?.blockedUntil, until > now else { return nil }
            return until - now
        }
    }

    /// Counts a failure; returns how long the address is now shut out (nil: not at all).
    @discardableResult
    func recordFailure(from address: String, now: ContinuousClock.Instant = .now) -> Duration? {
        entries.withLock { entries in
            if entries.count >= capacity { Self.makeRoom(in: &entries, capacity: capacity, forgetAfter: forgetAfter, now: now) }
            var entry = entries[address].flatMap { now - $0.lastFailure < forgetAfter ? $0 : nil }
                ?? Entry(failures: 0, lastFailure: now, blockedUntil: nil)
            entry.failures += 1
            entry.lastFailure = now
            var delay: Duration?
            if entry.failures > freeFailures {
                let doublings = min(entry.failures - freeFailures - 1, 16)
                delay = min(.seconds(1 << doublings), maximumDelay)
                entry.blockedUntil = now + (delay ?? .zero)
            }
            entries[address] = entry
            return delay
        }
    }

    /// Addresses remembered now.
    var count: Int { entries.withLock(\.count) }

    /// Drops entries until a tenth of the table is free: the forgotten ones, then those not
    /// shut out (the oldest failure first), then the shut-out ones whose wait ends soonest —
    /// filling the table with fresh addresses must not set a blocked guesser free.
    private static func makeRoom(in entries: inout [String: Entry], capacity: Int, forgetAfter: Duration, now: ContinuousClock.Instant) {
        entries = entries.filter { now - $0.value.lastFailure < forgetAfter }
        let target = capacity - max(1, capacity / 10)
        guard entries.count > target else { return }
        let order = entries.sorted { lhs, rhs in
            let (left, right) = (lhs.value.blockedUntil.map { $0 > now } ?? false, rhs.value.blockedUntil.map { $0 > now } ?? false)
            if left != right { return !left }
            if left { return (lhs.value.blockedUntil ?? now) < (rhs.value.blockedUntil ?? now) }
            return lhs.value.lastFailure < rhs.value.lastFailure
        }
        for (address, _) in order.prefix(entries.count - target) { entries.removeValue(forKey: address) }
    }
}
