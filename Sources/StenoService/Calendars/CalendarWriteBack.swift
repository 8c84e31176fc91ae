import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore

/// Write-back to the calendars Steno mirrors: creates events and renames them at the provider, and mirrors what
/// the provider answered at once, so what the write was for (a link, a new title) does not
/// wait for the next sync. Who may write what is the caller's to decide.
public struct CalendarWriteBack: Sendable {
    let store: any CatalogStore
    let writers: [CalendarProviderKind: any CalendarEventWriter]
    let access: CalendarAccountAccess
    let logger: Logger

    /// Write-back through `writers` (by the kind of account they serve), with the credentials
    /// `secrets` opens.
    public init(
        store: any CatalogStore, writers: [CalendarProviderKind: any CalendarEventWriter], secrets: SecretBox?, logger: Logger,
        memberNetworks: [String] = []
    ) {
        self.store = store
        self.writers = writers
        self.access = CalendarAccountAccess(store: store, secrets: secrets, memberNetworks: memberNetworks)
        self.logger = logger
    }

    /// A calendar events can be written to, with its account.
    public struct WritableCalendar: Sendable {
        public var calendar: CalendarInfo
        public var account: CalendarAccount
    }

    /// The calendars of `owner`'s accounts that events can be created in: every enabled
    /// calendar of an account whose provider writes, but of a Microsoft Graph account only the
    /// default calendar of the owner's own mailbox (the others are other people's, or shared).
    public func writableCalendars(of owner: User) async throws -> [WritableCalendar] {
        let accounts = Dictionary(
            try await store.accounts(ownerID: owner.id).filter { writers[$0.provider] != nil }.map { ($0.id, $0) },
            uniquingKeysWith: { first, _ in first })
        let emails = Set(owner.emails.map { $0.lowercased() })
        return try await store.calendars(accountID: nil, ownerID: owner.id).compactMap { calendar in
            guard let account = accounts[calendar.accountID], calendar.isEnabled else { return nil }
            if account.provider == .graph, calendar.remoteID.contains("/calendars/") { return nil }
            if account.provider == .graph, calendar.remoteID.hasPrefix("users/"),
                !emails.contains(String(calendar.remoteID.dropFirst("users/".count)).lowercased())
            {
                return nil
            }
            return WritableCalendar(calendar: calendar, account: account)
        }
    }

    /// Creates `event` in `target` and mirrors it.
    ///
    /// - Returns: the new event's id in the mirror (nil when the provider's answer did not
    ///   hold the event; the next sync mirrors it).
    /// - Throws: ``CalendarWriteError`` and ``CalendarSyncError`` as the provider reports them.
    public func create(_ event: NewCalendarEvent, in target: WritableCalendar) async throws -> Int64? {
        let context = try await access.context(for: target.account, logger: logger)
        let writer = try writer(for: target.account)
        let ref = try await access.enforcingPolicy(of: target.account) {
            try await writer.create(event, calendarRemoteID: target.calendar.remoteID, context: context)
        }
        logger.info(
            "event created at the provider",
            metadata: ["account": "\(target.account.id)", "calendar": "\(target.calendar.remoteID)", "resource": "\(ref.resource)"])
        return try await mirror(ref, calendar: target.calendar.descriptor, accountID: target.account.id)
    }

    /// Gives the event `source` the title `title` at its provider (for an occurrence of a
    /// series, the series) and mirrors the answer.
    ///
    /// - Returns: whether the mirror is up to date; false when the rest of the change (the
    ///   series' other occurrences) arrives with the next sync.
    /// - Throws: ``CalendarWriteError`` and ``CalendarSyncError`` as the provider reports them.
    public func rename(_ source: EventSource, title: String) async throws -> Bool {
        let account = try await store.account(id: source.accountID)
        let ref = CalendarEventRef(calendarRemoteID: source.calendarRemoteID, resource: source.resource, uid: source.iCalUID, etag: source.etag)
        let context = try await access.context(for: account, logger: logger)
        let writer = try writer(for: account)
        let renamed = try await access.enforcingPolicy(of: account) { try await writer.rename(ref, title: title, context: context) }
        logger.info("event renamed at the provider", metadata: ["account": "\(account.id)", "resource": "\(source.resource)"])
        let calendar = try await store.calendars(accountID: account.id, ownerID: nil).first { $0.remoteID == source.calendarRemoteID }
        guard let calendar else { return false }
        return try await mirror(renamed, calendar: calendar.descriptor, accountID: account.id) != nil
    }

    private func writer(for account: CalendarAccount) throws -> any CalendarEventWriter {
        guard let writer = writers[account.provider] else {
            throw CalendarWriteError.notPermitted("Steno cannot write to \(account.provider.rawValue) calendars (account \(account.id))")
        }
        return writer
    }

    /// Applies the written event to the mirror; returns its row's id.
    private func mirror(_ ref: CalendarEventRef, calendar: CalendarDescriptor, accountID: Int64) async throws -> Int64? {
        guard let occurrence = ref.occurrence else { return nil }
        _ = try await access.mirror(of: accountID).apply(
            CalendarChangeSet(
                calendar: calendar, scope: .incremental,
                updatedResources: [ResourceUpdate(resource: ref.resource, etag: ref.etag, occurrences: [occurrence])]))
        return try await store.eventSource(accountID: accountID, calendarRemoteID: calendar.remoteID, remoteID: occurrence.remoteID)?.eventID
    }
}
