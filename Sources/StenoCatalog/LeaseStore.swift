import Foundation

/// Named leases in the catalog: a task that exactly one of several daemons may run at a time
/// (watching an inbox) holds the lease while it runs and renews it; when its daemon dies the
/// lease runs out and another daemon takes it.
public protocol LeaseStore: Sendable {
    /// Takes the lease `name` for `holder` until `now + duration` when it is free, has run out,
    /// or is `holder`'s already (a renewal). Returns whether `holder` holds it now.
    func acquireLease(_ name: String, holder: String, duration: Duration, now: Date) async throws -> Bool
    /// Gives the lease up when `holder` holds it, so another daemon need not wait for it to run out.
    func releaseLease(_ name: String, holder: String) async throws
}

extension Duration {
    /// Whole milliseconds, as the catalog stores spans.
    package var catalogMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
