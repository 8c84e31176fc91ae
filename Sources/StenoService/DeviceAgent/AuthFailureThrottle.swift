import Foundation
import Synchronization

/// Slows down addresses that keep presenting wrong tokens or pairing codes.
///
/// The first few failures cost nothing (a phone with an old token retries a little); after
/// that each failure shuts the address out for twice as long as the one before, up to a
/// minute, so guessing a pairing code in its ten minutes is hopeless. A success forgets the
/// address. Memory stays bounded: addresses quiet for the forgetting time are dropped first.
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
            if entries.count >= capacity { entries = entries.filter { now - $0.value.lastFailure < forgetAfter } }
            if entries.count >= capacity { entries.removeAll() }
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

    /// Forgets the address's failures.
    func recordSuccess(from address: String) {
        _ = entries.withLock { $0.removeValue(forKey: address) }
    }
}
