import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore

/// Brings the history around recordings dated outside the mirrored window into the mirror, so
/// the linker finds their meetings: per owner's account the spans ``HistorySpanPlanner`` plans
/// (merged, minus what was fetched), a few accounts at a time, a source's Retry-After waited
/// out. What is fetched stays mirrored (marked as history) and is recorded in the catalog
/// (``HistorySpanStore``) per calendar: no daemon sharing the catalog, nor this one after a
/// restart, asks for a span again, spans another daemon is fetching are waited for, not
/// fetched twice, and a calendar enabled or discovered later is asked for its own spans alone.
public struct CalendarHistoryFetcher: Sendable {
    let store: any CatalogStore
    let sources: [CalendarProviderKind: any CalendarHistorySource]
    let access: CalendarAccountAccess
    let settings: CalendarSettings
    let planner: HistorySpanPlanner
    let logger: Logger
    /// Names this daemon's claims in the catalog.
    let claimant: String
    /// Accounts asked at once.
    var concurrentAccounts = 4
    /// The longest Retry-After waited out (longer ones leave the spans for a later attempt), and
    /// how often one account is retried.
    var maximumRetryWait: Duration = .seconds(120)
    var maximumAttempts = 3
    /// How long a claim keeps other daemons off its spans: longer than a fetch with its waits
    /// can take, so only a daemon that died while fetching leaves spans to be fetched again.
    var claimDuration: Duration = .seconds(900)

    /// A fetcher asking `sources` (by the kind of account they serve) with the credentials
    /// `secrets` opens.
    public init(
        store: any CatalogStore, sources: [CalendarProviderKind: any CalendarHistorySource], secrets: SecretBox?, settings: CalendarSettings,
        planner: HistorySpanPlanner = HistorySpanPlanner(), logger: Logger,
        claimant: String = "\(ProcessInfo.processInfo.hostName)/\(getpid())"
    ) {
        self.store = store
        self.sources = sources
        self.access = CalendarAccountAccess(store: store, secrets: secrets, memberNetworks: settings.memberNetworks)
        self.settings = settings
        self.planner = planner
        self.logger = logger
        self.claimant = claimant
    }

    /// Mirrors the history of the owners' accounts around the recordings outside the window.
    /// Failures are logged, not thrown: linking goes on with what the mirror holds.
    ///
    /// - Parameter progress: told the spans done and planned, before the first fetch and as
    ///   accounts' spans are fetched (or found fetched by another daemon).
    /// - Returns: the provider requests made.
    @discardableResult
    public func fetch(
        around recordings: [(ownerID: Int64?, recordedAt: Date)], now: Date = Date(), progress: HistoryProgress? = nil
    ) async -> Int {
        let window = ICalendar.mirroredWindow(around: now, daysBack: settings.windowPastDays, daysAhead: settings.windowFutureDays)
        var byOwner: [Int64: [Date]] = [:]
        for recording in recordings {
            guard let owner = recording.ownerID, !window.contains(recording.recordedAt) else { continue }
            byOwner[owner, default: []].append(recording.recordedAt)
        }
        guard !byOwner.isEmpty else { return 0 }
        var work: [(account: CalendarAccount, dates: [Date], spans: Int)] = []
        for (owner, dates) in byOwner {
            let accounts: [CalendarAccount]
            do {
                accounts = try await store.accounts(ownerID: owner)
            } catch {
                logger.warning("history: the owner's accounts could not be read", metadata: ["owner": "\(owner)", "error": "\(error)"])
                continue
            }
            for account in accounts where sources[account.provider] != nil {
                // Spans fetched for each enabled calendar need no claim (a write); a calendar
                // enabled or found since they were fetched has none of them.
                let fetched: [Int64: TimeSpanSet]
                do {
                    fetched = try await store.fetchedHistorySpans(accountID: account.id)
                } catch {
                    logger.warning("history: the account's spans could not be read", metadata: ["account": "\(account.id)", "error": "\(error)"])
                    continue
                }
                let planned = Set(fetched.values.flatMap { planner.spans(around: dates, window: window, fetched: $0) })
                if !planned.isEmpty { work.append((account, dates, planned.count)) }
            }
        }
        guard !work.isEmpty else { return 0 }
        let tally = HistorySpanTally(total: work.reduce(0) { $0 + $1.spans }, progress: progress)
        await tally.report()
        return await withTaskGroup(of: Int.self) { group in
            var next = 0
            var requests = 0
            while next < work.count && next < max(1, concurrentAccounts) {
                let item = work[next]
                group.addTask {
                    let made = await history(of: item.account, around: item.dates, window: window, tally: tally)
                    await tally.finished(accountID: item.account.id, spans: item.spans)
                    return made
                }
                next += 1
            }
            while let made = await group.next() {
                requests += made
                if next < work.count {
                    let item = work[next]
                    group.addTask {
                    let made = await history(of: item.account, around: item.dates, window: window, tally: tally)
                    await tally.finished(accountID: item.account.id, spans: item.spans)
                    return made
                }
                    next += 1
                }
            }
            return requests
        }
    }

    /// Claims the account's spans around `dates` in the catalog, fetches them, and waits for
    /// those another claim holds (a concurrent job, another daemon) until they are fetched or
    /// their claim runs out and they are claimed here.
    private func history(of account: CalendarAccount, around dates: [Date], window: DateInterval, tally: HistorySpanTally) async -> Int {
        let planner = planner
        var requests = 0
        var pause: Duration = .milliseconds(200)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: claimDuration + .seconds(60))
        while clock.now < deadline {
            let claim: HistorySpanClaim
            do {
                claim = try await store.claimHistorySpans(
                    accountID: account.id, claimant: claimant, duration: claimDuration, now: Date()
                ) { planner.spans(around: dates, window: window, fetched: $0) }
            } catch {
                logger.warning("history: spans could not be claimed", metadata: ["account": "\(account.id)", "error": "\(error)"])
                return requests
            }
            if !claim.spans.isEmpty {
                // Each calendar is asked for the spans it lacks only.
                var request: [String: [DateInterval]] = [:]
                for calendar in claim.calendars where !calendar.spans.isEmpty { request[calendar.remoteID] = calendar.spans }
                let (made, asked) = await fetch(request, of: account, window: window)
                requests += made
                let fetched = claim.calendars.filter { !$0.spans.isEmpty && asked.contains($0.remoteID) }
                do {
                    try await store.finishHistorySpans(claim, fetchedCalendarIDs: Set(fetched.map(\.calendarID)), now: Date())
                } catch {
                    logger.warning("history: fetched spans could not be recorded", metadata: ["account": "\(account.id)", "error": "\(error)"])
                }
                await tally.fetched(accountID: account.id, spans: claim.spans.count)
                // A failed fetch is not retried here: the next recording there asks again.
                guard !fetched.isEmpty else { return requests }
            }
            guard !claim.pending.isEmpty else { return requests }
            if claim.spans.isEmpty {
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
        logger.warning("history: spans another daemon claimed were not fetched in time", metadata: ["account": "\(account.id)"])
        return requests
    }

    /// One account's spans, per calendar (by remote ID), retried after a Retry-After the source
    /// asked for.
    ///
    /// - Returns: the requests made and the calendars whose spans were fetched.
    private func fetch(
        _ spans: [String: [DateInterval]], of account: CalendarAccount, window: DateInterval
    ) async -> (requests: Int, fetched: Set<String>) {
        guard let source = sources[account.provider] else { return (0, []) }
        var accountLogger = logger
        accountLogger[metadataKey: "account"] = .stringConvertible(account.id)
        var requests = 0
        for attempt in 1...max(1, maximumAttempts) {
            do {
                let policy = try await AccountSourcePolicy.forOwner(id: account.ownerID, in: store, memberNetworks: settings.memberNetworks)
                let context = CalendarSyncContext(
                    account: account, credentials: try await access.credentials(of: account.id), window: window,
                    mirror: HistoryCalendarMirror(inner: access.mirror(of: account.id)), logger: accountLogger, fileAccess: policy.fileAccess)
                let report = try await policy.enforcing { try await source.fetchHistory(spans, context: context) }
                requests += report.requests
                // No calendar asked (the account's first sync has not listed them yet): the
                // spans are not recorded as fetched, or they would never be asked for.
                guard !report.historyCalendars.isEmpty else {
                    accountLogger.notice("history: no calendar to ask yet", metadata: ["warnings": "\(report.warnings.joined(separator: "; "))"])
                    return (requests, [])
                }
                accountLogger.info(
                    "history fetched",
                    metadata: [
                        "calendars": "\(report.historyCalendars.count)", "spans": "\(Set(spans.values.joined()).count)",
                        "requests": "\(report.requests)", "inserted": "\(report.changes.inserted)",
                    ])
                return (requests, report.historyCalendars)
            } catch CalendarSyncError.retryLater(let after, let reason) where after <= maximumRetryWait && attempt < maximumAttempts {
                accountLogger.notice("history: the source asked to wait", metadata: ["seconds": "\(after.components.seconds)", "reason": "\(reason)"])
                try? await Task.sleep(for: after)
            } catch {
                accountLogger.warning("history could not be fetched; recordings there link against the mirror", metadata: ["error": "\(error)"])
                break
            }
        }
        return (requests, [])
    }
}
