import Foundation
import StenoAPI
import StenoCalendar
import StenoCatalog
import StenoCore

/// Microsoft Graph accounts: organisation accounts (client credentials) through
/// `accounts.add`, and a person's calendar through a device sign-in (`accounts.signIn`,
/// polled with `accounts.signInStatus`).
extension AccountMethods {
    func registerSignIn(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.accountsSignIn, access: .user) { call, params in
            try await methods.signIn(params, caller: call.caller)
        }
        table.register(StenoMethods.accountsSignInStatus, access: .user) { call, params in
            guard let signIns = methods.signIns,
                let record = try await signIns.record(params.id, makeFlow: { try await methods.flow(resuming: $0) }),
                call.caller.isAdmin || record.ownerID == call.caller.user?.id
            else {
                throw RPCError.notFound("no sign-in \(params.id) (sign-ins are forgotten an hour after they end)")
            }
            return try await methods.status(of: record)
        }
        table.register(StenoMethods.accountsSignInList, access: .user) { call, params in
            let ownerID = try await methods.listedOwnerID(params.owner, caller: call.caller)
            let now = Date()
            var owners: [Int64: String] = [:]
            var listed: [AccountSignInStatus] = []
            for record in try await methods.store.unfinishedDeviceSignIns(ownerID: ownerID) {
                if owners[record.ownerID] == nil {
                    owners[record.ownerID] = (try? await methods.store.user(matching: String(record.ownerID)))?.name ?? "#\(record.ownerID)"
                }
                var status = AccountSignInStatus(
                    id: record.id, state: record.outcome == nil ? .pending : .failed, message: record.outcome?.message,
                    owner: owners[record.ownerID], startedAt: record.createdAt, endedAt: record.finishedAt)
                // Left pending past its code's expiry: no daemon finished it, and none will.
                if record.outcome == nil, record.expiresAt < now {
                    status.state = .failed
                    status.message = DeviceSignInFailure.expired.description
                    status.endedAt = record.expiresAt
                }
                listed.append(status)
            }
            return listed
        }
    }

    /// Name and settings of an organisation account (client credentials).
    static func validatedOrganisation(_ params: AccountAddParams) throws -> (name: String, settings: [String: String]) {
        guard params.clientSecret != nil else {
            throw RPCError.invalidParams(
                "a Graph account added with accounts.add reads an organisation's calendars and needs --client-secret-file; "
                    + "a person's own calendar is added by signing in (steno accounts add graph without a secret)")
        }
        guard let clientID = params.clientID, !clientID.isEmpty else {
            throw RPCError.invalidParams("an organisation Graph account needs --client-id (the application registered in Microsoft Entra)")
        }
        let users = (params.users ?? []).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if let bad = users.first(where: { $0.contains("/") || $0.contains(",") }) {
            throw RPCError.invalidParams("\(bad) is not a user id or principal name")
        }
        var settings = ["mode": GraphAccountSetup.Mode.application.rawValue, "client_id": clientID]
        if let tenant = params.tenant { settings["tenant"] = tenant }
        if let authority = params.authority { settings["authority"] = authority }
        if let graphURL = params.graphURL { settings["graph_url"] = graphURL }
        if !users.isEmpty { settings["users"] = users.joined(separator: ",") }
        do {
            _ = try GraphAccountSetup(settings: settings)
        } catch {
            throw RPCError.invalidParams(String(describing: error))
        }
        let tenant = settings["tenant"] ?? "common"
        let who = users.isEmpty ? "every Steno user" : users.joined(separator: ", ")
        return ("Microsoft 365 \(tenant): \(who)", settings)
    }

    /// Starts a device sign-in for a new delegated account, or for an existing account whose
    /// sign-in expired; replaces an organisation account's secret directly.
    func signIn(_ params: AccountSignInParams, caller: Caller) async throws -> AccountSignInResult {
        guard providers.contains(.graph), let signIns, let transport else {
            throw RPCError.failedPrecondition("this stenod cannot sign in to Microsoft accounts")
        }
        guard let secrets else {
            throw RPCError.failedPrecondition("the daemon has no secrets key loaded, so it cannot store a sign-in; see its log")
        }
        var existing: CalendarAccount?
        var settings: [String: String]
        let ownerID: Int64
        if let id = params.account {
            let account = try await permittedAccount(id, caller: caller)
            guard account.provider == .graph else { throw RPCError.invalidParams("account \(id) is not a Microsoft Graph account") }
            existing = account
            settings = account.settings
            ownerID = account.ownerID
        } else {
            let owner = try await permittedOwner(params.owner, caller: caller)
            ownerID = owner.id
            try await checkRoomForSignIn(of: owner)
            guard let clientID = params.clientID, !clientID.isEmpty else {
                throw RPCError.invalidParams(
                    "signing in needs --client-id: an application registered in Microsoft Entra with public client flows allowed")
            }
            settings = ["mode": GraphAccountSetup.Mode.delegated.rawValue, "client_id": clientID]
            if params.writeAccess == true { settings["write"] = "true" }
            if let tenant = params.tenant { settings["tenant"] = tenant }
            if let authority = params.authority { settings["authority"] = authority }
            if let graphURL = params.graphURL { settings["graph_url"] = graphURL }
        }
        let setup: GraphAccountSetup
        do {
            setup = try GraphAccountSetup(settings: settings)
        } catch {
            throw RPCError.invalidParams(String(describing: error))
        }
        if setup.mode == .application {
            return try await replaceSecret(params, account: existing, secrets: secrets)
        }
        // A sign-in again keeps the write access the account had, unless told otherwise.
        let writeAccess = params.writeAccess ?? (settings["write"] == "true")
        if existing != nil { settings["write"] = writeAccess ? "true" : nil }
        let policy = try await AccountSourcePolicy.forOwner(id: ownerID, in: store, memberNetworks: memberNetworks)
        try Self.checkDestinations(of: settings, policy: policy)
        let authorization: DeviceAuthorization
        do {
            authorization = try await policy.enforcing {
                try await GraphSignIn.start(endpoints: setup.endpoints, clientID: setup.clientID, writeAccess: writeAccess, transport: transport)
            }
        } catch {
            throw RPCError.failedPrecondition("Microsoft sign-in could not start: \(error)")
        }
        let request = DeviceSignInRequest(authorization: authorization, settings: settings, accountID: existing?.id)
        let id = try await signIns.begin(
            ownerID: ownerID, sealedRequest: try request.sealed(with: secrets), expiresAt: authorization.expiresAt,
            flow: flow(request, setup: setup, existing: existing, ownerID: ownerID, policy: policy, secrets: secrets))
        return AccountSignInResult(
            id: id, verificationURI: authorization.verificationURI, userCode: authorization.userCode, message: authorization.message,
            expiresAt: authorization.expiresAt, interval: authorization.interval, status: AccountSignInStatus(id: id, state: .pending))
    }

    /// Polls a sign-in's token endpoint under the owner's source policy, then keeps the account.
    private func flow(
        _ request: DeviceSignInRequest, setup: GraphAccountSetup, existing: CalendarAccount?, ownerID: Int64, policy: AccountSourcePolicy,
        secrets: SecretBox
    ) -> DeviceSignIns.Flow {
        let methods = self
        return { sleep in
            guard let transport = methods.transport else { throw RPCError.failedPrecondition("no HTTP client") }
            return try await policy.enforcing {
                let tokens = try await GraphSignIn.tokens(
                    for: request.authorization, endpoints: setup.endpoints, clientID: setup.clientID, transport: transport, sleep: sleep)
                return try await methods.keep(
                    tokens, settings: request.settings, setup: setup, existing: existing, ownerID: ownerID, secrets: secrets)
            }
        }
    }

    /// The flow of a sign-in another daemon started (or this one before a restart), rebuilt
    /// from its sealed request.
    func flow(resuming record: DeviceSignInRecord) async throws -> DeviceSignIns.Flow {
        guard let secrets else { throw RPCError.failedPrecondition("the daemon has no secrets key loaded, so it cannot finish a sign-in") }
        let request = try DeviceSignInRequest.opened(record.sealedRequest, with: secrets)
        let setup = try GraphAccountSetup(settings: request.settings)
        var existing: CalendarAccount?
        if let accountID = request.accountID { existing = try await store.account(id: accountID) }
        let policy = try await AccountSourcePolicy.forOwner(id: record.ownerID, in: store, memberNetworks: memberNetworks)
        try Self.checkDestinations(of: request.settings, policy: policy)
        return flow(request, setup: setup, existing: existing, ownerID: record.ownerID, policy: policy, secrets: secrets)
    }

    /// Keeps what a finished sign-in gave: the account (new, or its sealed sign-in renewed)
    /// and its first sync.
    private func keep(
        _ tokens: OAuthTokens, settings: [String: String], setup: GraphAccountSetup, existing: CalendarAccount?, ownerID: Int64,
        secrets: SecretBox
    ) async throws -> (accountID: Int64, jobID: Int64?) {
        guard let transport else { throw RPCError.failedPrecondition("no HTTP client") }
        let user = try await GraphSignIn.signedInUser(accessToken: tokens.accessToken, graphURL: setup.endpoints.graphURL, transport: transport)
        let sealed = try secrets.seal(tokens.credentials(replacing: nil))
        let accountID: Int64
        if let existing {
            // Another person's sign-in would silently mirror their calendar under this account.
            if let mailbox = existing.settings["mailbox"], mailbox.lowercased() != user {
                throw DeviceSignInFailure.refused("signed in as \(user), but account \(existing.id) mirrors \(mailbox); sign in as \(mailbox)")
            }
            try await store.replaceSecret(accountID: existing.id, sealed: sealed)
            if settings != existing.settings { try await store.updateSettings(accountID: existing.id, settings: settings) }
            accountID = existing.id
        } else {
            var accountSettings = settings
            accountSettings["mailbox"] = user
            accountID = try await store.addAccount(
                CalendarAccountDraft(provider: .graph, ownerID: ownerID, displayName: user, settings: accountSettings, sealedSecret: sealed),
                limit: quotas.calendarAccountLimit, now: Date()
            ).id
        }
        let job = try await queue.enqueue(CalendarSyncJobHandler.draft(accountID: accountID, priority: JobPriority.interactive))
        return (accountID, job.job.id)
    }

    /// An organisation account's new client secret: sealed at once, and a sync queued.
    private func replaceSecret(_ params: AccountSignInParams, account: CalendarAccount?, secrets: SecretBox) async throws -> AccountSignInResult {
        guard let account, let secret = params.clientSecret, !secret.isEmpty else {
            throw RPCError.invalidParams("an organisation account signs in with its client secret: pass --client-secret-file")
        }
        try await store.replaceSecret(accountID: account.id, sealed: try secrets.seal(CalendarCredentials(clientSecret: secret)))
        let job = try await queue.enqueue(CalendarSyncJobHandler.draft(accountID: account.id, priority: JobPriority.interactive))
        let summary = try await summaries(ownerID: account.ownerID).first { $0.id == account.id }
        let id = "secret-\(account.id)"
        return AccountSignInResult(
            id: id, verificationURI: nil, userCode: nil, message: nil, expiresAt: nil, interval: nil,
            status: AccountSignInStatus(id: id, state: .succeeded, account: summary, job: job.job.id))
    }

    /// A sign-in as clients see it.
    func status(of record: DeviceSignInRecord) async throws -> AccountSignInStatus {
        switch record.outcome {
        case nil:
            return AccountSignInStatus(id: record.id, state: .pending)
        case .failed(let message):
            return AccountSignInStatus(id: record.id, state: .failed, message: message)
        case .succeeded(let accountID, let jobID):
            let account = try await store.account(id: accountID)
            let summary = try await summaries(ownerID: account.ownerID).first { $0.id == accountID }
            return AccountSignInStatus(id: record.id, state: .succeeded, account: summary, job: jobID)
        }
    }

    /// Refuses a sign-in for a new account when the owner is a member whose accounts and
    /// sign-ins in progress fill the limit already: each pending sign-in polls Microsoft, and
    /// the account it ends in would be refused anyway. (The store checks the limit again, in
    /// one transaction, when the account is added.)
    func checkRoomForSignIn(of owner: User) async throws {
        guard owner.role != .admin else { return }
        let limit = quotas.calendarAccountLimit
        let accounts = try await store.accounts(ownerID: owner.id).filter { $0.provider != .device }.count
        let pending = try await store.unfinishedDeviceSignIns(ownerID: owner.id).filter { $0.outcome == nil && $0.expiresAt >= Date() }.count
        guard limit.admits(accounts + pending) else { throw limit.refusal(owner: owner.name, count: accounts + pending) }
    }
}
