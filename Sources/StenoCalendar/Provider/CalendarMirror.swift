import Foundation
import StenoCore

/// The local mirror of one account's calendars, as a provider sees it during a sync.
///
/// The service implements it over the catalog store. Every `apply` is one transaction: the
/// change set's events and its sync state are saved together or not at all.
public protocol CalendarMirror: Sendable {
    /// The account's calendars with their stored sync state.
    func calendars() async throws -> [CalendarInfo]
    /// The resources mirrored for a calendar (by its remote id), with their ETags (nil when
    /// none was stored), for providers that compare ETags.
    func resourceTags(calendarRemoteID: String) async throws -> [String: String?]
    /// The resources of a calendar with a live occurrence overlapping `window`: what a source
    /// listing that window in full must report again, or has deleted. Resources mirrored only
    /// outside it are not the listing's to judge.
    func resources(calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String>
    /// Applies one change set and saves its sync state in the same transaction.
    func apply(_ changes: CalendarChangeSet) async throws -> MirrorChangeSummary
    /// Removes calendars that no longer exist at the source (their events go with them).
    func removeCalendars(except remoteIDs: Set<String>) async throws
    /// Saves the account-wide provider state and probed capabilities (nil keeps the stored value).
    func saveAccountState(syncState: String?, capabilities: String?) async throws
    /// Stores credentials that changed during the sync (a refreshed OAuth token).
    func saveCredentials(_ credentials: CalendarCredentials) async throws
}
