import Foundation
import StenoAPI
import StenoCalendar
import StenoCatalog
import StenoCore

/// `accounts.update`: new credentials for an account (a changed password, a renewed token) or
/// a moved ICS source, in place, so its mirrored events, their meetings and the links to them
/// stay. Removing and re-adding the account would drop all three.
extension AccountMethods {
    func registerUpdate(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.accountsUpdate, access: .user) { call, params in
            let result = try await methods.update(params, caller: call.caller)
            call.logger.info("calendar account updated", metadata: ["account": "\(params.id)", "uid": "\(call.caller.credentials.uid)"])
            return result
        }
    }

    func update(_ params: AccountUpdateParams, caller: Caller) async throws -> AccountAddResult {
        let account = try await permittedAccount(params.id, caller: caller)
        guard params.changesSomething else {
            throw RPCError.invalidParams(
                "nothing to update: give a new --password-file, --bearer-token-file, --refresh-token-file, --user, or (ICS) a new source")
        }
        guard let secrets else {
            throw RPCError.failedPrecondition("the daemon has no secrets key loaded, so it cannot store credentials; see its log")
        }
        let stored: CalendarCredentials?
        do {
            stored = try await CalendarAccountAccess(store: store, secrets: secrets).credentials(of: account.id)
        } catch is SecretBoxError {
            // The old secret cannot be opened (the key changed): the new one replaces it whole.
            stored = nil
        }
        let merged = Self.merged(stored, with: params)
        let addParams = try Self.addParams(for: account, params, credentials: merged)
        let policy = try await AccountSourcePolicy.forOwner(id: account.ownerID, in: store, memberNetworks: memberNetworks)
        let (name, newSettings, credentials) = try Self.validated(addParams, policy: policy)
        try Self.checkDestinations(of: newSettings, policy: policy)
        var settings = account.settings
        settings.merge(newSettings) { _, new in new }
        var moved: CalendarMove?
        if account.provider == .ics, let from = try await store.calendars(accountID: account.id, ownerID: nil).first?.remoteID {
            moved = CalendarMove(from: from, to: name)
        }
        let renewed = try await store.renewAccount(
            id: account.id, displayName: name, settings: settings, sealedSecret: try credentials.map(secrets.seal), movedCalendar: moved,
            now: Date())
        return try await syncQueued(renewed, if: params.sync ?? true)
    }

    /// The stored credentials with the new ones in: a password replaces OAuth tokens, an
    /// access token replaces a password (a refresh token stays unless replaced too).
    static func merged(_ stored: CalendarCredentials?, with params: AccountUpdateParams) -> CalendarCredentials {
        var credentials = stored ?? CalendarCredentials()
        if let password = params.password {
            credentials = CalendarCredentials(password: password, clientSecret: credentials.clientSecret)
        }
        if let token = params.bearerToken {
            credentials.password = nil
            credentials.accessToken = token
            credentials.accessTokenExpiresAt = nil
        }
        if let refreshToken = params.refreshToken { credentials.refreshToken = refreshToken }
        if let clientSecret = params.clientSecret { credentials.clientSecret = clientSecret }
        return credentials
    }

    /// The account as `accounts.add` would have been asked to make it now, so an update passes
    /// exactly the checks a new account does.
    static func addParams(for account: CalendarAccount, _ params: AccountUpdateParams, credentials: CalendarCredentials) throws
        -> AccountAddParams
    {
        let user = params.user ?? account.settings["user"]
        let tokenURL = params.tokenURL ?? account.settings["token_url"]
        let clientID = params.clientID ?? account.settings["client_id"]
        switch account.provider {
        case .ics:
            if params.bearerToken != nil || params.refreshToken != nil || params.tokenURL != nil || params.clientSecret != nil {
                throw RPCError.invalidParams("an ICS account takes a new source, user name or password only")
            }
            return AccountAddParams(
                provider: .ics, source: params.source ?? account.settings["source"] ?? account.displayName, user: user,
                password: credentials.password)
        case .caldav:
            if params.source != nil {
                throw RPCError.invalidParams("a CalDAV account's server cannot be changed; add a new account for another server")
            }
            return AccountAddParams(
                provider: .caldav, url: account.settings["url"], user: user, password: credentials.password,
                bearerToken: credentials.accessToken, refreshToken: credentials.refreshToken, tokenURL: tokenURL, clientID: clientID,
                clientSecret: credentials.clientSecret)
        case .graph:
            throw RPCError.invalidParams("a Microsoft account renews its sign-in or client secret with: steno accounts signin \(account.id)")
        case .device:
            throw RPCError.invalidParams("a device account renews its token with steno devices (steno devices --help)")
        }
    }
}
