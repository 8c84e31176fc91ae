import Foundation
import Logging
import StenoCalendar
import StenoCore
import StenoStore

/// Brings the history around recordings dated outside the mirrored window into the mirror, so
/// the linker finds their meetings: per owner's account the spans ``HistorySpanPlanner`` plans
/// (merged, minus what was fetched), a few accounts at a time, a source's Retry-After waited
/// out. What is fetched stays mirrored; a span is asked for once per account while the daemon runs.
public struct CalendarHistoryFetcher: Sendable {
    let store: any CatalogStore
    let sources: [CalendarProviderKind: any CalendarHistorySource]
    let access: CalendarAccountAccess
    let settings: CalendarSettings
    let planner: HistorySpanPlanner
    let ledger = HistorySpanLedger()
    let logger: Logger
    /// Accounts asked at once.
    var concurrentAccounts = 4
    /// The longest Retry-After waited out (longer ones leave the spans for a later attempt), and
    /// how often one account is retried.
    var maximumRetryWait: Duration = .seconds(120)
    var maximumAttempts = 3

    /// A fetcher asking `sources` (by the kind of account they serve) with the credentials
    /// `secrets` opens.
    public init(
        store: any CatalogStore, sources: [CalendarProviderKind: any CalendarHistorySource], secrets: SecretBox?, settings: CalendarSettings,
        planner: HistorySpanPlanner = HistorySpanPlanner(), logger: Logger
    ) {
        self.store = store
        self.sources = sources
        self.access = CalendarAccountAccess(store: store, secrets: secrets, memberNetworks: settings.memberNetworks)
        self.settings = settings
        self.planner = planner
        self.logger = logger
    }

    /// Mirrors the history of the owners' accounts around the recordings outside the window.
    /// Failures are logged, not thrown: linking goes on with what the mirror holds.
    ///
    /// - Returns: the provider requests made.
    @discardableResult
    public func fetch(around recordings: [(ownerID: Int64?, recordedAt: Date)], now: Date = Date()) async -> Int {
        let window = ICalendar.mirroredWindow(around: now, daysBack: settings.windowPastDays, daysAhead: settings.windowFutureDays)
        var byOwner: [Int64: [Date]] = [:]
        for recording in recordings {
            guard let owner = recording.ownerID, !window.contains(recording.recordedAt) else { continue }
            byOwner[owner, default: []].append(recording.recordedAt)
        }
        guard !byOwner.isEmpty else { return 0 }
        var work: [(account: CalendarAccount, spans: [DateInterval])] = []
        for (owner, dates) in byOwner {
            let accounts: [CalendarAccount]
            do {
                accounts = try await store.accounts(ownerID: owner)
            } catch {
                logger.warning("history: the owner's accounts could not be read", metadata: ["owner": "\(owner)", "error": "\(error)"])
                continue
            }
            for account in accounts where sources[account.provider] != nil {
                let spans = await ledger.claim(accountID: account.id) { planner.spans(around: dates, window: window, fetched: $0) }
                if !spans.isEmpty { work.append((account, spans)) }
            }
        }
        return await withTaskGroup(of: Int.self) { group in
            var next = 0
            var requests = 0
            while next < work.count && next < max(1, concurrentAccounts) {
                let item = work[next]
                group.addTask { await fetch(item.spans, of: item.account, window: window) }
                next += 1
            }
            while let made = await group.next() {
                requests += made
                if next < work.count {
                    let item = work[next]
                    group.addTask { await fetch(item.spans, of: item.account, window: window) }
                    next += 1
                }
            }
            return requests
        }
    }

    /// One account's spans, retried after a Retry-After the source asked for; spans that could
    /// not be fetched are given back to the ledger.
    private func fetch(_ spans: [DateInterval], of account: CalendarAccount, window: DateInterval) async -> Int {
        guard let source = sources[account.provider] else { return 0 }
        var accountLogger = logger
        accountLogger[metadataKey: "account"] = .stringConvertible(account.id)
        var requests = 0
        for attempt in 1...max(1, maximumAttempts) {
            do {
                let policy = try await AccountSourcePolicy.forOwner(id: account.ownerID, in: store, memberNetworks: settings.memberNetworks)
                let context = CalendarSyncContext(
                    account: account, credentials: try await access.credentials(of: account.id), window: window,
                    mirror: access.mirror(of: account.id), logger: accountLogger, fileAccess: policy.fileAccess)
                let report = try await policy.enforcing { try await source.fetchHistory(spans, context: context) }
                requests += report.requests
                accountLogger.info(
                    "history fetched", metadata: ["spans": "\(spans.count)", "requests": "\(report.requests)", "inserted": "\(report.changes.inserted)"])
                return requests
            } catch CalendarSyncError.retryLater(let after, let reason) where after <= maximumRetryWait && attempt < maximumAttempts {
                accountLogger.notice("history: the source asked to wait", metadata: ["seconds": "\(after.components.seconds)", "reason": "\(reason)"])
                try? await Task.sleep(for: after)
            } catch {
                accountLogger.warning("history could not be fetched; recordings there link against the mirror", metadata: ["error": "\(error)"])
                break
            }
        }
        await ledger.release(accountID: account.id, spans)
        return requests
    }
}

/// The spans fetched (or being fetched) per account, so each is asked for once.
actor HistorySpanLedger {
    private var fetched: [Int64: TimeSpanSet] = [:]

    /// The spans `plan` picks given what the account has, marked as fetched at once so a
    /// concurrent call does not ask for them again.
    func claim(accountID: Int64, _ plan: (TimeSpanSet) -> [DateInterval]) -> [DateInterval] {
        let known = fetched[accountID] ?? TimeSpanSet()
        let spans = plan(known)
        fetched[accountID] = known.union(TimeSpanSet(spans))
        return spans
    }

    /// Forgets spans whose fetch failed: a later call asks for them again.
    func release(accountID: Int64, _ spans: [DateInterval]) {
        fetched[accountID] = fetched[accountID]?.subtracting(TimeSpanSet(spans))
    }
}
