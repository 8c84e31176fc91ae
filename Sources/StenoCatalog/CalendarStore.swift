import Foundation
import StenoCore

/// Calendar accounts, their calendars, and the mirror of their events.
///
/// Providers never write here directly: the service hands their change sets to
/// ``applyCalendarChanges(_:accountID:now:)``, one transaction each.
public protocol CalendarStore: Sendable {
    /// Adds an account. Throws `.conflict` when the owner has an account of that provider for
    /// the same source already, `.notFound` for an unknown owner, `.failedPrecondition` when
    /// the owner is a member who has `limit`'s maximum of accounts (devices' own not counted).
    func addAccount(_ draft: CalendarAccountDraft, limit: MemberLimit?, now: Date) async throws -> CalendarAccount
    /// Accounts ordered by id; only `ownerID`'s when given.
    func accounts(ownerID: Int64?) async throws -> [CalendarAccount]
    /// One account. Throws `.notFound`.
    func account(id: Int64) async throws -> CalendarAccount
    /// Removes an account with its calendars and events (links keep their cached copies).
    func removeAccount(id: Int64) async throws -> CalendarAccount
    /// The account's sealed credentials.
    func sealedSecret(accountID: Int64) async throws -> Data?
    /// Replaces the sealed credentials (a refreshed token, a new password).
    func replaceSecret(accountID: Int64, sealed: Data?) async throws
    /// Renews an account in place (new credentials, a moved ICS source): its name, settings
    /// and sealed credentials in one transaction; the calendar mirrored as `movedCalendar.from`
    /// takes the remote id `movedCalendar.to`, keeping its events and their links. Throws
    /// `.conflict` when the owner has another account of that provider named `displayName`,
    /// `.notFound` for an unknown account.
    func renewAccount(
        id: Int64, displayName: String, settings: [String: String], sealedSecret: Data?, movedCalendar: CalendarMove?, now: Date
    ) async throws -> CalendarAccount
    /// The accounts holding sealed credentials, by id.
    func accountsWithSealedSecrets() async throws -> [Int64]
    /// Drops every sealed secret (the key that opens them is gone), leaving those accounts
    /// `needs-credentials` with `reason`; returns how many there were.
    func forgetSealedSecrets(reason: String, now: Date) async throws -> Int
    /// Replaces the account's settings (no secrets: they are sealed apart).
    func updateSettings(accountID: Int64, settings: [String: String]) async throws
    /// Saves provider-wide state and probed capabilities; nil keeps the stored value.
    func saveAccountState(accountID: Int64, syncState: String?, capabilities: String?) async throws
    /// Records how a sync went: health, last success / error, next sync.
    func recordSyncResult(accountID: Int64, _ result: AccountSyncResult) async throws
    /// Accounts whose next sync is due at `now` (or never synced); not disabled ones, nor those
    /// waiting for new credentials.
    func accountsDue(at now: Date) async throws -> [Int64]

    /// Calendars ordered by id; only one account's when given, only one owner's when given.
    func calendars(accountID: Int64?, ownerID: Int64?) async throws -> [CalendarInfo]
    /// The resources mirrored for one calendar with their ETags: every resource a change set
    /// reported, whether or not it has occurrences in the mirrored window.
    func resourceTags(accountID: Int64, calendarRemoteID: String) async throws -> [String: String?]
    /// The resources of one calendar with a live event overlapping `window`.
    func resources(accountID: Int64, calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String>
    /// Applies a provider's change set and its sync state in one transaction.
    func applyCalendarChanges(_ changes: CalendarChangeSet, accountID: Int64, now: Date) async throws -> MirrorChangeSummary
    /// Enables or disables calendar `id`. Disabling tombstones its live events (links to them
    /// are revalidated as gone by the next `links.after-sync`) and forgets its resources; from
    /// then on change sets for it are ignored. Either way its sync state is cleared, so the
    /// next sync of an enabled calendar starts fresh. Throws `.notFound`.
    func setCalendarEnabled(id: Int64, enabled: Bool, now: Date) async throws -> CalendarInfo
    /// Removes an account's calendars not named in `remoteIDs`.
    func removeCalendars(accountID: Int64, except remoteIDs: Set<String>) async throws
    /// Mirrored events of an account, ordered by start; tombstones only when asked.
    func mirroredEvents(accountID: Int64, includeDeleted: Bool) async throws -> [MirroredEvent]
    /// Where the given events live at their sources, tombstones included (unknown ids are left out).
    func eventSources(eventIDs: [Int64]) async throws -> [Int64: EventSource]
    /// Where a meeting's live events live at their sources, by event id.
    func eventSources(meetingID: Int64) async throws -> [EventSource]
    /// The event row mirroring `remoteID` of an account's calendar, tombstone or not.
    func eventSource(accountID: Int64, calendarRemoteID: String, remoteID: String) async throws -> EventSource?
}

/// A mirrored calendar whose source moved: its remote id changes, its events stay.
public struct CalendarMove: Sendable, Hashable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// How one sync of an account ended.
public enum AccountSyncResult: Sendable, Hashable {
    case succeeded(at: Date, nextSyncAt: Date)
    case failed(at: Date, message: String, health: AccountHealth, nextSyncAt: Date?)
}

/// An event row of the mirror.
public struct MirroredEvent: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var calendarID: Int64
    public var meetingID: Int64?
    public var resource: String?
    public var etag: String?
    /// When the source deleted it; nil while it exists.
    public var deletedAt: Date?
    public var occurrence: EventOccurrence

    public init(
        id: Int64, calendarID: Int64, meetingID: Int64?, resource: String?, etag: String?, deletedAt: Date?, occurrence: EventOccurrence
    ) {
        self.id = id
        self.calendarID = calendarID
        self.meetingID = meetingID
        self.resource = resource
        self.etag = etag
        self.deletedAt = deletedAt
        self.occurrence = occurrence
    }
}

extension CalendarStore {
    /// Adds an account whatever its owner has.
    public func addAccount(_ draft: CalendarAccountDraft, now: Date) async throws -> CalendarAccount {
        try await addAccount(draft, limit: nil, now: now)
    }
}
