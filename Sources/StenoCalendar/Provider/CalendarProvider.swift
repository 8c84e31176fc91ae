import Foundation
import Logging
import StenoCore

/// A source of calendar events: turns an account's remote state into change sets for the
/// local mirror.
///
/// A provider holds no state of its own between syncs: what it needs next time (sync tokens,
/// delta links, ETags) it writes through the ``CalendarMirror`` together with the data that
/// state covers, so a crash mid-sync resumes from the last change set applied and never skips
/// data. New providers (Microsoft Graph, a push-based device agent) plug in here without
/// touching the mirror or the linker.
public protocol CalendarProvider: Sendable {
    /// The kind of account this provider syncs.
    var kind: CalendarProviderKind { get }

    /// Brings the mirror of `context.account` up to date.
    ///
    /// - Throws: ``CalendarSyncError`` for failures with a meaning (credentials refused, rate
    ///   limits, a source that is not a calendar); other errors are transient.
    func sync(_ context: CalendarSyncContext) async throws -> CalendarSyncReport
}

/// Everything one sync of one account may use.
public struct CalendarSyncContext: Sendable {
    /// The account as stored (settings, provider state, capabilities).
    public var account: CalendarAccount
    /// The opened secret, when the account has one.
    public var credentials: CalendarCredentials?
    /// Occurrences are mirrored within this window (by default 180 days back, 365 ahead).
    public var window: DateInterval
    /// Where change sets go.
    public var mirror: any CalendarMirror
    /// Told how far the sync got, for progress bars.
    public var progress: @Sendable (CalendarSyncProgress) -> Void
    public var logger: Logger
    /// Whose permissions local calendar files are read with.
    public var fileAccess: LocalFileAccess

    public init(
        account: CalendarAccount, credentials: CalendarCredentials?, window: DateInterval, mirror: any CalendarMirror,
        progress: @escaping @Sendable (CalendarSyncProgress) -> Void = { _ in }, logger: Logger,
        fileAccess: LocalFileAccess = .unrestricted
    ) {
        self.fileAccess = fileAccess
        self.account = account
        self.credentials = credentials
        self.window = window
        self.mirror = mirror
        self.progress = progress
        self.logger = logger
    }
}

/// How far a sync got.
public struct CalendarSyncProgress: Sendable, Hashable {
    /// Calendars done and in all.
    public var calendarsDone: Int
    public var calendarsTotal: Int
    /// The calendar being synced.
    public var calendarName: String?

    public init(calendarsDone: Int, calendarsTotal: Int, calendarName: String? = nil) {
        self.calendarsDone = calendarsDone
        self.calendarsTotal = calendarsTotal
        self.calendarName = calendarName
    }
}

/// What a sync did.
public struct CalendarSyncReport: Sendable, Hashable {
    /// Calendars looked at.
    public var calendars = 0
    /// The calendars (remote IDs) a history fetch asked for their spans.
    public var historyCalendars: Set<String> = []
    /// Calendars whose contents were fetched in full (first sync, or a token the server refused).
    public var fullSyncs = 0
    /// Changes applied to the mirror.
    public var changes = MirrorChangeSummary()
    /// HTTP requests made.
    public var requests = 0
    /// Bytes received in response bodies.
    public var bytesReceived = 0
    /// Things worth telling the user that did not stop the sync (a calendar skipped…).
    public var warnings: [String] = []

    public init() {}
}
