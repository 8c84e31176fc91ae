#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCalendar
import StenoCatalog
import StenoCore

/// `accounts.*` and `calendars.*`: calendar accounts and their mirrored calendars. Members
/// manage their own accounts; admins everyone's.
struct AccountMethods: Sendable {
    let store: any CatalogStore
    let queue: JobQueue
    /// Seals credentials; nil when no key could be loaded (accounts with secrets are refused).
    let secrets: SecretBox?
    /// The providers this daemon can sync.
    let providers: Set<CalendarProviderKind>
    /// Microsoft sign-ins in progress; nil when this daemon cannot start any.
    var signIns: DeviceSignIns? = nil
    /// The HTTP client sign-ins talk through.
    var transport: HTTPTransport? = nil
    /// Internal hosts and networks members' accounts may reach (`[calendars] member_networks`).
    var memberNetworks: [String] = []
    /// What one member may own (`[members]`).
    var quotas = MemberQuotas()

    func register(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.accountsAdd, access: .user) { call, params in
            try await methods.add(params, caller: call.caller)
        }
        table.register(StenoMethods.accountsList, access: .user) { call, params in
            let ownerID = try await methods.listedOwnerID(params.owner, caller: call.caller)
            let accounts = try await methods.summaries(ownerID: ownerID)
            return try PageCursor.page(accounts, id: \.id, cursor: params.cursor, limit: params.limit)
        }
        table.register(StenoMethods.accountsRemove, access: .user) { call, params in
            let account = try await methods.permittedAccount(params.id, caller: call.caller)
            let summary = try await methods.summaries(ownerID: account.ownerID).first { $0.id == account.id }
            _ = try await methods.store.removeAccount(id: account.id)
            call.logger.info("calendar account removed", metadata: ["account": "\(account.id)", "uid": "\(call.caller.credentials.uid)"])
            guard let summary else { throw RPCError.notFound("no calendar account \(account.id)") }
            return summary
        }
        table.register(StenoMethods.accountsSync, access: .user) { call, params in
            let accounts: [CalendarAccount]
            if let id = params.id {
                accounts = [try await methods.permittedAccount(id, caller: call.caller)]
            } else {
                accounts = try await methods.store.accounts(ownerID: call.caller.isAdmin ? nil : call.caller.user?.id ?? -1)
            }
            var jobs: [AccountSyncJob] = []
            for account in accounts {
                let result = try await methods.queue.enqueue(
                    CalendarSyncJobHandler.draft(accountID: account.id, priority: JobPriority.interactive))
                jobs.append(AccountSyncJob(account: account.id, jobID: result.job.id))
            }
            return AccountSyncResult(jobs: jobs)
        }
        registerSignIn(in: &table)
        registerUpdate(in: &table)
        table.register(StenoMethods.calendarsList, access: .user) { call, params in
            if let account = params.account { _ = try await methods.permittedAccount(account, caller: call.caller) }
            let calendars = try await methods.store.calendars(
                accountID: params.account, ownerID: call.caller.isAdmin ? nil : call.caller.user?.id ?? -1)
            return try PageCursor.page(calendars.map(Self.summary), id: \.id, cursor: params.cursor, limit: params.limit)
        }
        registerCalendarSwitches(in: &table)
    }

    /// Whose accounts or sign-ins a list shows: the named owner's (members: only themselves),
    /// else the caller's, or everyone's (nil) for an admin.
    func listedOwnerID(_ owner: String?, caller: Caller) async throws -> Int64? {
        let own = caller.isAdmin ? nil : caller.user?.id ?? -1
        guard let owner else { return own }
        let user = try await store.user(matching: owner)
        guard caller.isAdmin || user.id == own else { throw RPCError.notPermitted("members see only their own calendar accounts") }
        return user.id
    }

    /// The account, if the caller owns it or is an admin; `.notFound` otherwise (members do not
    /// learn which ids exist).
    func permittedAccount(_ id: Int64, caller: Caller) async throws -> CalendarAccount {
        let account = try await store.account(id: id)
        guard caller.isAdmin || account.ownerID == caller.user?.id else {
            throw StoreError.notFound(entity: "calendar account", reference: String(id))
        }
        return account
    }

    func add(_ params: AccountAddParams, caller: Caller) async throws -> AccountAddResult {
        guard providers.contains(params.provider) else {
            throw RPCError.invalidParams(
                "this stenod cannot sync \(params.provider.rawValue) accounts (it syncs: \(providers.map(\.rawValue).sorted().joined(separator: ", ")))")
        }
        let owner = try await permittedOwner(params.owner, caller: caller)
        let policy = AccountSourcePolicy.forOwner(owner, memberNetworks: memberNetworks)
        let (name, settings, credentials) = try Self.validated(params, policy: policy)
        try Self.checkDestinations(of: settings, policy: policy)
        var sealed: Data?
        if let credentials {
            guard let secrets else {
                throw RPCError.failedPrecondition("the daemon has no secrets key loaded, so it cannot store credentials; see its log")
            }
            sealed = try secrets.seal(credentials)
        }
        let account = try await store.addAccount(
            CalendarAccountDraft(provider: params.provider, ownerID: owner.id, displayName: name, settings: settings, sealedSecret: sealed),
            limit: quotas.calendarAccountLimit, now: Date())
        return try await syncQueued(account, if: params.sync ?? true)
    }

    /// The answer of `accounts.add` and `accounts.update`: the account's summary, and the
    /// sync queued at once unless the caller asked not to.
    func syncQueued(_ account: CalendarAccount, if sync: Bool) async throws -> AccountAddResult {
        var jobID: Int64?
        if sync {
            jobID = try await queue.enqueue(CalendarSyncJobHandler.draft(accountID: account.id, priority: JobPriority.interactive)).job.id
        }
        guard let summary = try await summaries(ownerID: account.ownerID).first(where: { $0.id == account.id }) else {
            throw RPCError.notFound("no calendar account \(account.id)")
        }
        return AccountAddResult(account: summary, job: jobID)
    }

    /// The owner a new account may have: the named user (admins, or members naming
    /// themselves), else the caller.
    func permittedOwner(_ reference: String?, caller: Caller) async throws -> User {
        let owner: User
        if let reference {
            owner = try await store.user(matching: reference)
        } else if let user = caller.user {
            owner = user
        } else {
            throw RPCError.invalidParams("you are not a Steno user: name the account's owner (--owner NAME)")
        }
        guard caller.isAdmin || owner.id == caller.user?.id else {
            throw RPCError.notPermitted("members may add calendar accounts only for themselves")
        }
        return owner
    }

    /// The account's name, settings and credentials from the params, checked per provider.
    static func validated(_ params: AccountAddParams, policy: AccountSourcePolicy) throws -> (String, [String: String], CalendarCredentials?) {
        var credentials = CalendarCredentials(
            password: params.password, accessToken: params.bearerToken, refreshToken: params.refreshToken,
            clientSecret: params.clientSecret)
        var settings: [String: String] = [:]
        if let user = params.user { settings["user"] = user }
        if let tokenURL = params.tokenURL { settings["token_url"] = tokenURL }
        if let clientID = params.clientID { settings["client_id"] = clientID }
        let name: String
        switch params.provider {
        case .ics:
            guard let source = params.source, !source.isEmpty else {
                throw RPCError.invalidParams("an ICS account needs a source: a .ics file, a folder of them, or an http(s) URL")
            }
            let parsed: ICSSource
            do {
                parsed = try ICSSource(source)
            } catch {
                throw RPCError.invalidParams(error.description)
            }
            if case .url = parsed {
                name = moveURLCredentials(parsed.description, settings: &settings, credentials: &credentials)
            } else {
                name = URL(fileURLWithPath: parsed.description).standardizedFileURL.path
                try checkReadable(name, parsed, with: policy.fileAccess)
            }
            settings["source"] = name
        case .caldav:
            guard let text = params.url, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else {
                throw RPCError.invalidParams("a CalDAV account needs --url with an http(s) server URL")
            }
            let inURL = URLCredentials.split(text)
            guard params.password != nil || params.bearerToken != nil || inURL?.password != nil else {
                throw RPCError.invalidParams("a CalDAV account needs a password (--password-file) or a bearer token (--bearer-token-file)")
            }
            if params.password != nil && params.user == nil && inURL == nil {
                throw RPCError.invalidParams("a CalDAV account with a password needs the user name (--user)")
            }
            if params.refreshToken != nil && (params.tokenURL == nil || params.clientID == nil) {
                throw RPCError.invalidParams("refreshing a bearer token needs --token-url and --client-id")
            }
            let stripped = moveURLCredentials(url.absoluteString, settings: &settings, credentials: &credentials)
            settings["url"] = stripped
            name = settings["user"].map { "\($0) at \(stripped)" } ?? stripped
        case .graph:
            let organisation = try Self.validatedOrganisation(params)
            name = organisation.name
            settings = organisation.settings
        case .device:
            throw RPCError.invalidParams("\(params.provider.rawValue) accounts are not available in this stenod yet")
        }
        if credentials == CalendarCredentials() { return (name, settings, nil) }
        credentials.accessTokenExpiresAt = nil
        return (name, settings, credentials)
    }

    /// Refuses URLs a member's account may not reach (internal addresses not allowed by
    /// `[calendars] member_networks`); every request is checked again when it is made.
    static func checkDestinations(of settings: [String: String], policy: AccountSourcePolicy) throws {
        do {
            try policy.checkURLs(in: settings)
        } catch let error as HTTPTransportError {
            throw RPCError.notPermitted(error.description)
        }
    }

    /// `text` without a user name and password written into it; they go to the account's
    /// `user` setting and sealed password unless those were given separately.
    static func moveURLCredentials(_ text: String, settings: inout [String: String], credentials: inout CalendarCredentials) -> String {
        guard let found = URLCredentials.split(text) else { return text }
        if settings["user"] == nil { settings["user"] = found.user }
        if credentials.password == nil { credentials.password = found.password }
        return found.url
    }

    /// Members may point an ICS account only at files they could read themselves: the daemon
    /// must not become a way to read its own files (every sync checks again).
    static func checkReadable(_ path: String, _ source: ICSSource, with access: LocalFileAccess) throws {
        var isFolder = false
        if case .folder = source { isFolder = true }
        do {
            try access.check(path, isFolder: isFolder)
        } catch {
            throw RPCError.notPermitted("\(error.description)")
        }
    }

    /// The accounts (of one owner, or all) as clients see them.
    func summaries(ownerID: Int64?) async throws -> [AccountSummary] {
        let accounts = try await store.accounts(ownerID: ownerID)
        let calendars = try await store.calendars(accountID: nil, ownerID: ownerID)
        var owners: [Int64: String] = [:]
        var result: [AccountSummary] = []
        for account in accounts {
            if owners[account.ownerID] == nil {
                owners[account.ownerID] = (try? await store.user(matching: String(account.ownerID)))?.name ?? "#\(account.ownerID)"
            }
            let own = calendars.filter { $0.accountID == account.id }
            result.append(
                AccountSummary(
                    id: account.id, provider: account.provider, owner: owners[account.ownerID] ?? "", ownerID: account.ownerID,
                    name: CredentialRedaction.redacted(account.displayName), settings: account.settings.mapValues(CredentialRedaction.redacted),
                    hasCredentials: account.hasSecret, health: account.health, lastSuccessAt: account.lastSuccessAt,
                    lastError: account.lastError.map(CredentialRedaction.redacted), lastErrorAt: account.lastErrorAt,
                    nextSyncAt: account.nextSyncAt, calendars: own.count, events: own.reduce(0) { $0 + $1.eventCount },
                    createdAt: account.createdAt))
        }
        return result
    }
}
