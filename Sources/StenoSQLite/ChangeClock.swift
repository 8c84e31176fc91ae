import GRDB
import StenoCatalog

/// The change sequence of the events table, as one write transaction advances it.
///
/// Each events row written takes the next value: the larger of the time in milliseconds and
/// the last value plus one, so values read like times yet never repeat or go back, even when
/// the system clock does. SQLite serialises writers, so values become visible in order: a
/// reader that has seen value N has seen every change numbered up to N (the change feeds'
/// `since`). The last value is read once per transaction and written back by ``save(_:)``.
struct ChangeClock {
    /// Milliseconds since 1970 at the start of the transaction.
    let now: Int64
    private var last: Int64?
    private var loaded: Int64?

    init(now: Int64) {
        self.now = now
    }

    /// The value for the next row written.
    mutating func next(_ db: Database) throws -> Int64 {
        let previous: Int64
        if let last {
            previous = last
        } else {
            previous = try Self.current(db)
            loaded = previous
        }
        let value = max(now, previous + 1)
        last = value
        return value
    }

    /// Writes the last value handed out back to the clock (nothing when none was).
    func save(_ db: Database) throws {
        guard let last, last != loaded else { return }
        try db.execute(sql: "UPDATE change_clock SET last = ? WHERE id = 1", arguments: [last])
    }

    /// The value of the last change committed (as this transaction sees it).
    static func current(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT last FROM change_clock WHERE id = 1") ?? 0
    }
}
