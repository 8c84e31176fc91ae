import Foundation
import StenoCore

extension StenoMethods {
    // MARK: accounts.*, calendars.*

    /// Adds a calendar account (members: for themselves; admins: for anyone) and queues its
    /// first sync. Secrets travel in the params over the local socket and are sealed at once.
    public static let accountsAdd = RPCMethodDescriptor<AccountAddParams, AccountAddResult>("accounts.add")
    /// Calendar accounts with their health (members: their own; admins: all).
    public static let accountsList = RPCMethodDescriptor<AccountListParams, Page<AccountSummary>>("accounts.list")
    /// Removes an account with its mirrored calendars (its owner or an admin); links keep their cached copies.
    public static let accountsRemove = RPCMethodDescriptor<AccountIDParams, AccountSummary>("accounts.remove")
    /// Queues a sync of one account, or of every account the caller may sync; returns the job ids.
    public static let accountsSync = RPCMethodDescriptor<AccountSyncParams, AccountSyncResult>("accounts.sync")
    /// The mirrored calendars of the caller's accounts (admins: all), with event counts.
    public static let calendarsList = RPCMethodDescriptor<CalendarListParams, Page<CalendarSummary>>("calendars.list")
}

/// Params of `accounts.add`.
public struct AccountAddParams: Codable, Sendable, Hashable {
    /// `ics`, `caldav` or `graph` (an organisation's calendars with client credentials; a
    /// person's Microsoft calendar is added by signing in: ``StenoMethods/accountsSignIn``).
    public var provider: CalendarProviderKind
    /// The owner (name, email or id); the caller by default.
    public var owner: String?
    /// ICS: a `.ics` file, a folder of them (on the daemon's machine), or an http(s)/webcal URL.
    public var source: String?
    /// CalDAV: the server, principal or calendar-home URL.
    public var url: String?
    /// CalDAV / ICS URL: the user name for Basic authentication.
    public var user: String?
    /// A password or app-specific password (Basic).
    public var password: String?
    /// An OAuth 2.0 access token (Bearer).
    public var bearerToken: String?
    /// An OAuth 2.0 refresh token, with `tokenURL` and `clientID`, to renew `bearerToken`.
    public var refreshToken: String?
    public var tokenURL: String?
    public var clientID: String?
    public var clientSecret: String?
    /// Queue the first sync at once (default true).
    public var sync: Bool?
    /// Graph: the Microsoft Entra tenant (id or domain; an organisation account needs one).
    public var tenant: String?
    /// Graph organisation account: the users (ids or UPNs) whose calendars are read; none:
    /// every Steno user's email.
    public var users: [String]?
    /// Graph: the identity platform authority (national clouds, tests).
    public var authority: String?
    /// Graph: the Graph base URL (national clouds, tests).
    public var graphURL: String?

    public init(
        provider: CalendarProviderKind, owner: String? = nil, source: String? = nil, url: String? = nil, user: String? = nil,
        password: String? = nil, bearerToken: String? = nil, refreshToken: String? = nil, tokenURL: String? = nil,
        clientID: String? = nil, clientSecret: String? = nil, sync: Bool? = nil, tenant: String? = nil, users: [String]? = nil,
        authority: String? = nil, graphURL: String? = nil
    ) {
        self.tenant = tenant
        self.users = users
        self.authority = authority
        self.graphURL = graphURL
        self.provider = provider
        self.owner = owner
        self.source = source
        self.url = url
        self.user = user
        self.password = password
        self.bearerToken = bearerToken
        self.refreshToken = refreshToken
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.sync = sync
    }
}

/// What `accounts.add` did.
public struct AccountAddResult: Codable, Sendable, Hashable {
    public var account: AccountSummary
    /// The first sync's job, when one was queued.
    public var job: Int64?

    public init(account: AccountSummary, job: Int64?) {
        self.account = account
        self.job = job
    }
}

/// A calendar account as clients see it: no secrets, its health and how much it mirrors.
public struct AccountSummary: Codable, Sendable, Hashable {
    public var id: Int64
    public var provider: CalendarProviderKind
    /// The owner's user name.
    public var owner: String
    public var ownerID: Int64
    /// The source: file, URL or mailbox.
    public var name: String
    /// Non-secret settings (URL, user name…).
    public var settings: [String: String]
    public var hasCredentials: Bool
    public var health: AccountHealth
    public var lastSuccessAt: Date?
    public var lastError: String?
    public var lastErrorAt: Date?
    public var nextSyncAt: Date?
    public var calendars: Int
    public var events: Int
    public var createdAt: Date

    public init(
        id: Int64, provider: CalendarProviderKind, owner: String, ownerID: Int64, name: String, settings: [String: String],
        hasCredentials: Bool, health: AccountHealth, lastSuccessAt: Date?, lastError: String?, lastErrorAt: Date?, nextSyncAt: Date?,
        calendars: Int, events: Int, createdAt: Date
    ) {
        self.id = id
        self.provider = provider
        self.owner = owner
        self.ownerID = ownerID
        self.name = name
        self.settings = settings
        self.hasCredentials = hasCredentials
        self.health = health
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.nextSyncAt = nextSyncAt
        self.calendars = calendars
        self.events = events
        self.createdAt = createdAt
    }
}

/// Params of `accounts.list`.
public struct AccountListParams: Codable, Sendable, Hashable {
    /// Only this owner's accounts (name, email or id).
    public var owner: String?
    public var cursor: String?
    public var limit: Int?

    public init(owner: String? = nil, cursor: String? = nil, limit: Int? = nil) {
        self.owner = owner
        self.cursor = cursor
        self.limit = limit
    }
}

/// Names one account.
public struct AccountIDParams: Codable, Sendable, Hashable {
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

/// Params of `accounts.sync`.
public struct AccountSyncParams: Codable, Sendable, Hashable {
    /// The account; every account the caller may sync when absent.
    public var id: Int64?
    public init(id: Int64? = nil) { self.id = id }
}

/// What `accounts.sync` queued.
public struct AccountSyncResult: Codable, Sendable, Hashable {
    /// One job per account (a sync already queued or running is reused).
    public var jobs: [AccountSyncJob]

    public init(jobs: [AccountSyncJob]) { self.jobs = jobs }
}

/// The sync job of one account.
public struct AccountSyncJob: Codable, Sendable, Hashable {
    public var account: Int64
    public var jobID: Int64
    public init(account: Int64, jobID: Int64) {
        self.account = account
        self.jobID = jobID
    }
}

/// Params of `calendars.list`.
public struct CalendarListParams: Codable, Sendable, Hashable {
    /// Only this account's calendars.
    public var account: Int64?
    public var cursor: String?
    public var limit: Int?

    public init(account: Int64? = nil, cursor: String? = nil, limit: Int? = nil) {
        self.account = account
        self.cursor = cursor
        self.limit = limit
    }
}

/// A mirrored calendar.
public struct CalendarSummary: Codable, Sendable, Hashable {
    public var id: Int64
    public var account: Int64
    public var remoteID: String
    public var name: String
    public var color: String?
    public var timeZone: String?
    public var events: Int
    /// Whether the calendar counts (`calendars.disable` turns it off).
    public var enabled: Bool

    public init(
        id: Int64, account: Int64, remoteID: String, name: String, color: String?, timeZone: String?, events: Int, enabled: Bool = true
    ) {
        self.enabled = enabled
        self.id = id
        self.account = account
        self.remoteID = remoteID
        self.name = name
        self.color = color
        self.timeZone = timeZone
        self.events = events
    }
}

extension AccountAddParams: SecretRedacting {
    /// The password, tokens and client secret stay out of descriptions (a logged request).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "provider": provider, "owner": owner as Any, "source": source as Any, "url": url as Any, "user": user as Any,
                "password": RedactedSecret(password), "bearerToken": RedactedSecret(bearerToken),
                "refreshToken": RedactedSecret(refreshToken), "tokenURL": tokenURL as Any, "clientID": clientID as Any,
                "clientSecret": RedactedSecret(clientSecret), "sync": sync as Any, "tenant": tenant as Any,
                "users": users as Any, "authority": authority as Any, "graphURL": graphURL as Any,
            ], displayStyle: .struct)
    }
}

extension StenoMethods {
    /// Renews an account's credentials in place (its owner or an admin), or moves an ICS
    /// account to another file, folder or URL; the mirror and its links stay. Queues a sync.
    public static let accountsUpdate = RPCMethodDescriptor<AccountUpdateParams, AccountAddResult>("accounts.update")
}

/// Params of `accounts.update`: what to replace; anything absent stays as it was.
public struct AccountUpdateParams: Codable, Sendable, Hashable {
    /// The account.
    public var id: Int64
    /// ICS: the new `.ics` file, folder or http(s)/webcal URL.
    public var source: String?
    /// CalDAV / ICS URL: the user name for Basic authentication.
    public var user: String?
    /// A new password (Basic); replaces stored OAuth tokens.
    public var password: String?
    /// A new OAuth 2.0 access token (Bearer); replaces a stored password.
    public var bearerToken: String?
    /// A new OAuth 2.0 refresh token (with `tokenURL` and `clientID`, given now or before).
    public var refreshToken: String?
    public var tokenURL: String?
    public var clientID: String?
    public var clientSecret: String?
    /// Queue a sync at once (default true).
    public var sync: Bool?

    public init(
        id: Int64, source: String? = nil, user: String? = nil, password: String? = nil, bearerToken: String? = nil,
        refreshToken: String? = nil, tokenURL: String? = nil, clientID: String? = nil, clientSecret: String? = nil, sync: Bool? = nil
    ) {
        self.id = id
        self.source = source
        self.user = user
        self.password = password
        self.bearerToken = bearerToken
        self.refreshToken = refreshToken
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.sync = sync
    }

    /// Whether the params name anything to change.
    public var changesSomething: Bool {
        [source, user, password, bearerToken, refreshToken, tokenURL, clientID, clientSecret].contains { $0 != nil }
    }
}

extension AccountUpdateParams: SecretRedacting {
    /// The password, tokens and client secret stay out of descriptions (a logged request).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "id": id, "source": source as Any, "user": user as Any, "password": RedactedSecret(password),
                "bearerToken": RedactedSecret(bearerToken), "refreshToken": RedactedSecret(refreshToken), "tokenURL": tokenURL as Any,
                "clientID": clientID as Any, "clientSecret": RedactedSecret(clientSecret), "sync": sync as Any,
            ], displayStyle: .struct)
    }
}
