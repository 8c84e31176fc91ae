/// Told how far a history fetch is: spans done and spans planned, over all accounts.
public typealias HistoryProgress = @Sendable (_ done: Int, _ total: Int) async -> Void

/// Counts the spans of one history fetch as accounts' claims are fetched, for its progress: an
/// account counts at most the spans planned for it, and all of them once it is done (fetched,
/// found fetched by another daemon, or given up).
actor HistorySpanTally {
    private let total: Int
    private let progress: HistoryProgress?
    private var done: [Int64: Int] = [:]
    private var finished: [Int64: Int] = [:]

    init(total: Int, progress: HistoryProgress?) {
        self.total = total
        self.progress = progress
    }

    /// Spans of the account fetched by a claim.
    func fetched(accountID: Int64, spans: Int) async {
        done[accountID, default: 0] += spans
        await report()
    }

    /// The account is done with its `spans` planned.
    func finished(accountID: Int64, spans: Int) async {
        finished[accountID] = spans
        await report()
    }

    /// Tells the progress callback the current count.
    func report() async {
        guard let progress else { return }
        var count = 0
        for (account, spans) in done where finished[account] == nil { count += spans }
        count += finished.values.reduce(0, +)
        await progress(min(count, total), total)
    }
}
