import Foundation

/// Where an account's events come from.
public enum CalendarProviderKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Microsoft Graph (Outlook, Microsoft 365).
    case graph
    /// A CalDAV server (iCloud, Google, Nextcloud, Radicale, …).
    case caldav
    /// An iCalendar file, folder of files, or http(s) URL.
    case ics
    /// Events pushed by an on-device agent (Apple Calendar).
    case device
}

/// How an account's last syncs went.
public enum AccountHealth: String, Sendable, Hashable, Codable, CaseIterable {
    /// The last sync succeeded (or none has run yet).
    case ok
    /// The last sync failed; it is retried on schedule.
    case failing
    /// The server refused the credentials; a person must supply new ones.
    case needsCredentials = "needs-credentials"
    /// Syncing is switched off.
    case disabled
}

/// A calendar account: one person's connection to one provider.
///
/// Secrets never appear here: they are sealed in the store and only the sync job opens them.
public struct CalendarAccount: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var provider: CalendarProviderKind
    /// The user whose calendars these are.
    public var ownerID: Int64
    /// A name for tables: the URL, file or mailbox.
    public var displayName: String
    /// Provider settings that are not secret: URL, user name, path, tenant….
    public var settings: [String: String]
    /// Whether sealed credentials are stored.
    public var hasSecret: Bool
    /// Provider-wide sync state (for example a CalDAV principal URL); per-calendar state lives on the calendar.
    public var syncState: String?
    /// Capabilities probed once (JSON), so later syncs skip the probing.
    public var capabilities: String?
    public var health: AccountHealth
    public var lastSuccessAt: Date?
    public var lastError: String?
    public var lastErrorAt: Date?
    public var nextSyncAt: Date?
    public var createdAt: Date

    public init(
        id: Int64, provider: CalendarProviderKind, ownerID: Int64, displayName: String, settings: [String: String] = [:],
        hasSecret: Bool = false, syncState: String? = nil, capabilities: String? = nil, health: AccountHealth = .ok,
        lastSuccessAt: Date? = nil, lastError: String? = nil, lastErrorAt: Date? = nil, nextSyncAt: Date? = nil,
        createdAt: Date = Date()
    ) {
        self.id = id
        self.provider = provider
        self.ownerID = ownerID
        self.displayName = displayName
        self.settings = settings
        self.hasSecret = hasSecret
        self.syncState = syncState
        self.capabilities = capabilities
        self.health = health
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.nextSyncAt = nextSyncAt
        self.createdAt = createdAt
    }
}

/// A new account as the store receives it (the secret already sealed).
public struct CalendarAccountDraft: Sendable, Hashable {
    public var provider: CalendarProviderKind
    public var ownerID: Int64
    public var displayName: String
    public var settings: [String: String]
    /// Credentials sealed with the service's key; nil for accounts that need none.
    public var sealedSecret: Data?

    public init(provider: CalendarProviderKind, ownerID: Int64, displayName: String, settings: [String: String] = [:], sealedSecret: Data? = nil) {
        self.provider = provider
        self.ownerID = ownerID
        self.displayName = displayName
        self.settings = settings
        self.sealedSecret = sealedSecret
    }
}

/// A calendar of an account, as the local mirror knows it.
public struct CalendarInfo: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var accountID: Int64
    /// Graph calendar id, CalDAV collection href, ICS file path or URL.
    public var remoteID: String
    public var name: String
    public var color: String?
    public var timeZone: String?
    /// The provider's incremental state for this calendar (JSON): sync token, ctag, ETag….
    public var syncState: String?
    /// Mirrored events that are not deleted.
    public var eventCount: Int
    /// Whether the calendar counts: a disabled one is not mirrored and its events are gone
    /// from the mirror (its links orphaned, their cached copies kept).
    public var isEnabled: Bool

    public init(
        id: Int64, accountID: Int64, remoteID: String, name: String, color: String? = nil, timeZone: String? = nil,
        syncState: String? = nil, eventCount: Int = 0, isEnabled: Bool = true
    ) {
        self.isEnabled = isEnabled
        self.id = id
        self.accountID = accountID
        self.remoteID = remoteID
        self.name = name
        self.color = color
        self.timeZone = timeZone
        self.syncState = syncState
        self.eventCount = eventCount
    }
}

extension CalendarInfo {
    /// The calendar as a change set names it, so applying one keeps its name, color and zone.
    public var descriptor: CalendarDescriptor {
        CalendarDescriptor(remoteID: remoteID, name: name, color: color, timeZone: timeZone)
    }
}

extension CalendarAccountDraft: SecretRedacting {
    /// The sealed credentials stay out of descriptions, sealed or not.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "provider": provider, "ownerID": ownerID, "displayName": displayName, "settings": settings,
                "sealedSecret": RedactedSecret(sealedSecret),
            ], displayStyle: .struct)
    }
}
