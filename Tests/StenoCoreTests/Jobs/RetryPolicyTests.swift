import StenoTesting
import Testing

@testable import StenoCore

@Suite("Retry policy")
struct RetryPolicyTests {
    @Test func withoutJitterTheDelayDoublesUpToTheCap() {
        let policy = RetryPolicy(base: .seconds(5), factor: 2, cap: .seconds(60), jitter: 0)
        var random = SeededRandom(seed: 1)
        let delays = (1...6).map { policy.delay(afterAttempt: $0, random: &random) }
        #expect(delays == [.seconds(5), .seconds(10), .seconds(20), .seconds(40), .seconds(60), .seconds(60)])
    }

    @Test func jitterStaysWithinItsBoundsAndNeverPassesTheCap() {
        let policy = RetryPolicy.default
        var random = SeededRandom(seed: 42)
        for attempt in 1...30 {
            let nominal = min(3600, 5 * pow2(attempt - 1))
            for _ in 0..<200 {
                let seconds = Self.seconds(policy.delay(afterAttempt: attempt, random: &random))
                #expect(seconds >= nominal * 0.8 - 0.001)
                #expect(seconds <= min(3600, nominal * 1.2) + 0.001)
            }
        }
    }

    @Test func delaysGrowFromAttemptToAttemptDespiteJitter() {
        let policy = RetryPolicy.default
        var random = SeededRandom(seed: 7)
        // With ±20 % and factor 2 the worst draw of attempt n+1 beats the best of attempt n.
        for attempt in 1...8 {
            let worstNext = (0..<100).map { _ in policy.delay(afterAttempt: attempt + 1, random: &random) }.min()!
            let bestThis = (0..<100).map { _ in policy.delay(afterAttempt: attempt, random: &random) }.max()!
            #expect(worstNext > bestThis)
        }
    }

    @Test func hugeAttemptCountsAndOddSettingsAreSafe() {
        var random = SeededRandom(seed: 3)
        let capped = RetryPolicy(base: .seconds(1), factor: 10, cap: .seconds(30), jitter: 0.5)
        let delay = capped.delay(afterAttempt: 10_000, random: &random)
        #expect(delay <= .seconds(30))
        #expect(delay >= .seconds(15))
        let clamped = RetryPolicy(base: .seconds(2), factor: 0.1, cap: .seconds(10), jitter: 7)
        #expect(clamped.factor == 1)
        #expect(clamped.jitter == 1)
        #expect(clamped.delay(afterAttempt: 0, random: &random) >= .zero)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    func pow2(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<exponent { value *= 2 }
        return value
    }
}
