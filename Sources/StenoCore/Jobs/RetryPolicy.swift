import Foundation

/// Exponential backoff with jitter between the attempts of a failing job.
///
/// The delay after attempt `n` (1-based) is `base · factorⁿ⁻¹`, capped at `cap`, then spread by
/// ±`jitter` (a fraction) so that jobs failing together do not retry in lock-step; the result
/// never exceeds `cap` and is never negative.
public struct RetryPolicy: Sendable, Hashable {
    /// The delay after the first failed attempt.
    public var base: Duration
    /// How much each further attempt multiplies the delay.
    public var factor: Double
    /// The longest delay.
    public var cap: Duration
    /// The spread, as a fraction of the delay: 0.2 gives 80 %…120 %.
    public var jitter: Double

    /// A policy; `factor` below 1 and `jitter` outside 0…1 are clamped.
    public init(base: Duration = .seconds(5), factor: Double = 2, cap: Duration = .seconds(3600), jitter: Double = 0.2) {
        self.base = base
        self.factor = max(1, factor)
        self.cap = cap
        self.jitter = min(1, max(0, jitter))
    }

    /// 5 s, doubling, at most an hour, ±20 %.
    public static let `default` = RetryPolicy()

    /// The delay before the attempt after `attempt` (1 for the first failure).
    public func delay(afterAttempt attempt: Int, random: inout some RandomNumberGenerator) -> Duration {
        let capSeconds = Self.seconds(cap)
        // Computed in Double and capped before jitter, so large attempt counts cannot overflow.
        let exponent = Double(max(0, attempt - 1))
        let raw = Self.seconds(base) * pow(factor, min(exponent, 1024))
        let nominal = min(capSeconds, raw.isFinite ? raw : capSeconds)
        let spread = jitter == 0 ? 1 : Double.random(in: (1 - jitter)...(1 + jitter), using: &random)
        let seconds = max(0, min(capSeconds, nominal * spread))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

