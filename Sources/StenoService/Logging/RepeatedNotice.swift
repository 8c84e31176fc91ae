import Logging
import Synchronization

/// Logs a line that may repeat thousands of times a second (a refused connection, say) at
/// most once per interval and kind: the first at once, later ones folded into a count that
/// the next line reports ("… and 14,692 more like it in the last 10 s"). A member hammering a
/// limit must not be able to fill the journal.
final class RepeatedNotice: Sendable {
    private struct Tally {
        var lastLogged: ContinuousClock.Instant
        var suppressed: Int
    }

    private let logger: Logger
    private let level: Logger.Level
    private let interval: Duration
    /// Kinds remembered at most; a flood of distinct kinds forgets the oldest tallies.
    private let capacity: Int
    private let tallies = Mutex<[String: Tally]>([:])

    init(logger: Logger, level: Logger.Level = .notice, interval: Duration = .seconds(10), capacity: Int = 1024) {
        self.logger = logger
        self.level = level
        self.interval = interval
        self.capacity = capacity
    }

    /// Logs `message` unless a line of this `kind` was logged within the interval; returns
    /// whether it was logged.
    @discardableResult
    func note(
        _ kind: String, _ message: @autoclosure () -> String, metadata: Logger.Metadata = [:], now: ContinuousClock.Instant = .now
    ) -> Bool {
        let suppressed = tallies.withLock { tallies -> Int? in
            if var tally = tallies[kind], now - tally.lastLogged < interval {
                tally.suppressed += 1
                tallies[kind] = tally
                return nil
            }
            let earlier = tallies[kind]?.suppressed ?? 0
            if tallies.count >= capacity, tallies[kind] == nil {
                tallies = tallies.filter { now - $0.value.lastLogged < interval }
                if tallies.count >= capacity { tallies.removeAll() }
            }
            tallies[kind] = Tally(lastLogged: now, suppressed: 0)
            return earlier
        }
        guard let suppressed else { return false }
        let text = suppressed > 0 ? "\(message()) (\(suppressed) more like it since the last such line)" : message()
        logger.log(level: level, "\(text)", metadata: metadata)
        return true
    }
}
