import Foundation
import StenoCore

/// The spans of each calendar account's history mirrored on demand (``HistorySpanPlanner``),
/// kept in the catalog so a restarted daemon, or another daemon on the same catalog, does not
/// ask the provider for them again.
///
/// A span is first claimed, then fetched, then recorded as fetched (or its claim dropped when
/// the fetch failed). Claims are made under one lock per account and expire, so two daemons
/// never fetch the same span at once, and a daemon that died while fetching leaves its spans to
/// the next one after the claim's duration.
public protocol HistorySpanStore: Sendable {
    /// Claims for `claimant` the spans `plan` picks given the account's fetched spans and
    /// every unexpired claim, all in one transaction holding the account's lock.
    ///
    /// - Parameters:
    ///   - plan: the spans to fetch given the spans known (fetched or being fetched).
    ///   - duration: how long the claim holds before another daemon may take the spans.
    /// - Returns: the spans claimed (empty when the account is gone) and the spans `plan` would
    ///   pick that others are fetching now: wait for them before relying on the mirror.
    func claimHistorySpans(
        accountID: Int64, claimant: String, duration: Duration, now: Date, plan: @Sendable (TimeSpanSet) -> [DateInterval]
    ) async throws -> HistorySpanClaim

    /// Ends a claim: its spans are recorded as fetched at `now` when `fetched`, and given back
    /// (asked for again by the next claim) otherwise.
    func finishHistorySpans(_ claim: HistorySpanClaim, fetched: Bool, now: Date) async throws
}

/// The outcome of ``HistorySpanStore/claimHistorySpans(accountID:claimant:duration:now:plan:)``.
public struct HistorySpanClaim: Sendable, Hashable {
    /// The account the spans belong to.
    public var accountID: Int64
    /// The catalog rows of the spans claimed.
    public var ids: [Int64]
    /// The spans claimed, to fetch now.
    public var spans: [DateInterval]
    /// Spans wanted that another claim is fetching now.
    public var pending: [DateInterval]
    /// Every span of the account fetched before this claim.
    public var fetched: TimeSpanSet

    public init(accountID: Int64, ids: [Int64] = [], spans: [DateInterval] = [], pending: [DateInterval] = [], fetched: TimeSpanSet = TimeSpanSet()) {
        self.accountID = accountID
        self.ids = ids
        self.spans = spans
        self.pending = pending
        self.fetched = fetched
    }

    /// The claim `plan` makes given the account's `fetched` spans and others' live `claimed`
    /// ones (both backends decide the same way): what it picks beside both, and what it would
    /// pick beside the fetched spans only that the live claims cover.
    package static func planned(
        accountID: Int64, fetched: TimeSpanSet, claimed: TimeSpanSet, plan: (TimeSpanSet) -> [DateInterval]
    ) -> HistorySpanClaim {
        let spans = plan(fetched.union(claimed))
        let wanted = TimeSpanSet(plan(fetched))
        let pending = wanted.subtracting(wanted.subtracting(claimed)).spans
        return HistorySpanClaim(accountID: accountID, spans: spans, pending: pending, fetched: fetched)
    }
}
