import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore

/// Runs one sync of one account: opens its secret, hands the provider a mirror over the
/// catalog, and records the outcome in the account's health.
public struct CalendarSyncer: Sendable {
    let store: any CatalogStore
    let providers: [CalendarProviderKind: any CalendarProvider]
    let secrets: SecretBox?
    let settings: CalendarSettings
    let logger: Logger

    /// A syncer over `store` with a provider for each kind it can sync.
    public init(
        store: any CatalogStore, providers: [any CalendarProvider], secrets: SecretBox?, settings: CalendarSettings, logger: Logger
    ) {
        self.store = store
        self.providers = Dictionary(providers.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        self.secrets = secrets
        self.settings = settings
        self.logger = logger
    }

    /// What one sync produced: the provider's report and the meetings it touched.
    public struct Outcome: Sendable {
        public var report: CalendarSyncReport
        public var touchedMeetingIDs: Set<Int64>
    }

    /// Syncs an account now.
    ///
    /// - Throws: ``CalendarSyncError`` (recorded in the account's health first) or a store error.
    public func sync(accountID: Int64, now: Date = Date(), progress: @escaping @Sendable (CalendarSyncProgress) -> Void = { _ in }) async throws
        -> Outcome
    {
        let account = try await store.account(id: accountID)
        guard let provider = providers[account.provider] else {
            throw CalendarSyncError.badSource("this stenod cannot sync \(account.provider.rawValue) accounts yet")
        }
        let access = CalendarAccountAccess(store: store, secrets: secrets)
        let credentials: CalendarCredentials?
        do {
            credentials = try await access.credentials(of: accountID)
        } catch let error as SecretBoxError {
            try await record(accountID, .failed(at: now, message: error.description, health: .needsCredentials, nextSyncAt: nil))
            throw CalendarSyncError.needsCredentials(error.description)
        }
        let mirror = access.mirror(of: accountID)
        let window = ICalendar.mirroredWindow(around: now, daysBack: settings.windowPastDays, daysAhead: settings.windowFutureDays)
        var accountLogger = logger
        accountLogger[metadataKey: "account"] = .stringConvertible(accountID)
        let policy = try await AccountSourcePolicy.forOwner(id: account.ownerID, in: store, memberNetworks: settings.memberNetworks)
        let context = CalendarSyncContext(
            account: account, credentials: credentials, window: window, mirror: mirror, progress: progress, logger: accountLogger,
            fileAccess: policy.fileAccess)
        let started = ContinuousClock.now
        do {
            let report = try await policy.enforcing { try await provider.sync(context) }
            let finished = Date()
            try await record(accountID, .succeeded(at: finished, nextSyncAt: finished.addingTimeInterval(settings.syncInterval.seconds)))
            accountLogger.info(
                "calendar sync done",
                metadata: [
                    "calendars": "\(report.calendars)", "inserted": "\(report.changes.inserted)", "updated": "\(report.changes.updated)",
                    "deleted": "\(report.changes.deleted)", "requests": "\(report.requests)",
                    "ms": "\((ContinuousClock.now - started).milliseconds)",
                ])
            return Outcome(report: report, touchedMeetingIDs: mirror.touchedMeetingIDs)
        } catch let error as CalendarSyncError {
            let failedAt = Date()
            switch error {
            case .needsCredentials(let message):
                try await record(accountID, .failed(at: failedAt, message: message, health: .needsCredentials, nextSyncAt: nil))
            case .retryLater(let after, let reason):
                try await record(accountID, .failed(at: failedAt, message: reason, health: .failing, nextSyncAt: failedAt.addingTimeInterval(after.seconds)))
            case .badSource(let message), .malformedResponse(let message):
                try await record(
                    accountID, .failed(at: failedAt, message: message, health: .failing,
                                       nextSyncAt: failedAt.addingTimeInterval(settings.syncInterval.seconds)))
            }
            accountLogger.warning("calendar sync failed: \(CredentialRedaction.redacted(error.description))")
            throw error
        } catch {
            let failedAt = Date()
            let message = String(describing: error)
            try await record(
                accountID, .failed(at: failedAt, message: message, health: .failing,
                                   nextSyncAt: failedAt.addingTimeInterval(settings.syncInterval.seconds)))
            accountLogger.warning("calendar sync failed: \(CredentialRedaction.redacted(message))")
            throw error
        }
    }

    func record(_ accountID: Int64, _ result: AccountSyncResult) async throws {
        do {
            try await store.recordSyncResult(accountID: accountID, result)
        } catch StoreError.notFound {
            // The account was removed while it synced: nothing to record.
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }

    /// Whole milliseconds.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
