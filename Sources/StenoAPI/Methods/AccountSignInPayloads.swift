import Foundation
import StenoCore

extension StenoMethods {
    // MARK: accounts.signIn, accounts.signInStatus

    /// Starts a Microsoft sign-in with the device code flow: returns the verification URL and
    /// the code to enter there; the daemon polls until the person signed in, then stores the
    /// account (or the renewed sign-in of `account`) and queues its first sync. For an
    /// organisation account with `account` and `clientSecret`, replaces the secret at once.
    public static let accountsSignIn = RPCMethodDescriptor<AccountSignInParams, AccountSignInResult>("accounts.signIn")
    /// Where a sign-in stands: pending, succeeded (with the account) or failed (with the reason).
    public static let accountsSignInStatus = RPCMethodDescriptor<AccountSignInStatusParams, AccountSignInStatus>("accounts.signInStatus")
    /// Sign-ins that did not (yet) give an account: pending ones, and failed ones with the
    /// reason for a week after they failed (members: their own; admins: all).
    public static let accountsSignInList = RPCMethodDescriptor<AccountSignInListParams, [AccountSignInStatus]>("accounts.signInList")
}

/// Params of `accounts.signInList`.
public struct AccountSignInListParams: Codable, Sendable, Hashable {
    /// Only this owner's sign-ins (name, email or id).
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
}

/// Params of `accounts.signIn`.
public struct AccountSignInParams: Codable, Sendable, Hashable {
    /// Sign in again for this existing account (its settings are kept); nil adds an account.
    public var account: Int64?
    /// The owner of a new account (name, email or id); the caller by default.
    public var owner: String?
    /// `common` (default), `organizations`, or a tenant id or domain.
    public var tenant: String?
    /// The application (client) id registered in Microsoft Entra, allowing public client flows.
    public var clientID: String?
    /// The identity platform authority (default `https://login.microsoftonline.com`).
    public var authority: String?
    /// The Graph base URL (default `https://graph.microsoft.com/v1.0`).
    public var graphURL: String?
    /// Ask for `Calendars.ReadWrite` (write-back) instead of `Calendars.Read`.
    public var writeAccess: Bool?
    /// An organisation account's new client secret (with `account`): no device flow.
    public var clientSecret: String?

    public init(
        account: Int64? = nil, owner: String? = nil, tenant: String? = nil, clientID: String? = nil, authority: String? = nil,
        graphURL: String? = nil, writeAccess: Bool? = nil, clientSecret: String? = nil
    ) {
        self.account = account
        self.owner = owner
        self.tenant = tenant
        self.clientID = clientID
        self.authority = authority
        self.graphURL = graphURL
        self.writeAccess = writeAccess
        self.clientSecret = clientSecret
    }
}

/// What `accounts.signIn` started.
public struct AccountSignInResult: Codable, Sendable, Hashable {
    /// The sign-in's id, for `accounts.signInStatus`.
    public var id: String
    /// Where the person signs in, and the code they enter there (nil when no device flow was needed).
    public var verificationURI: String?
    public var userCode: String?
    /// The identity platform's own instructions.
    public var message: String?
    public var expiresAt: Date?
    /// Seconds between status checks that make sense.
    public var interval: Double?
    public var status: AccountSignInStatus

    public init(
        id: String, verificationURI: String?, userCode: String?, message: String?, expiresAt: Date?, interval: Double?,
        status: AccountSignInStatus
    ) {
        self.id = id
        self.verificationURI = verificationURI
        self.userCode = userCode
        self.message = message
        self.expiresAt = expiresAt
        self.interval = interval
        self.status = status
    }
}

/// Params of `accounts.signInStatus`.
public struct AccountSignInStatusParams: Codable, Sendable, Hashable {
    public var id: String
    public init(id: String) { self.id = id }
}

/// Where a sign-in stands.
public struct AccountSignInStatus: Codable, Sendable, Hashable {
    /// `pending`, `succeeded` or `failed`.
    public enum State: String, Codable, Sendable, Hashable, CaseIterable {
        case pending, succeeded, failed
    }

    public var id: String
    public var state: State
    /// Why it failed.
    public var message: String?
    /// The account signed in (succeeded).
    public var account: AccountSummary?
    /// The account's first sync job (succeeded).
    public var job: Int64?
    /// The owner of the account signed in (`accounts.signInList`).
    public var owner: String?
    /// When the sign-in started and ended (`accounts.signInList`).
    public var startedAt: Date?
    public var endedAt: Date?

    public init(
        id: String, state: State, message: String? = nil, account: AccountSummary? = nil, job: Int64? = nil, owner: String? = nil,
        startedAt: Date? = nil, endedAt: Date? = nil
    ) {
        self.owner = owner
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.id = id
        self.state = state
        self.message = message
        self.account = account
        self.job = job
    }
}

extension AccountSignInParams: SecretRedacting {
    /// The client secret stays out of descriptions.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "account": account as Any, "owner": owner as Any, "tenant": tenant as Any, "clientID": clientID as Any,
                "authority": authority as Any, "graphURL": graphURL as Any, "writeAccess": writeAccess as Any,
                "clientSecret": RedactedSecret(clientSecret),
            ], displayStyle: .struct)
    }
}
