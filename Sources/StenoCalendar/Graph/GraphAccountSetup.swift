import Foundation
import StenoCore

/// A Graph account's settings, checked: how it signs in, where, and which mailboxes it reads.
public struct GraphAccountSetup: Sendable, Hashable {
    /// `delegated` (device sign-in) or `application` (client credentials).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case delegated, application
    }

    public var mode: Mode
    public var clientID: String
    public var endpoints: GraphEndpoints
    /// Application accounts: the users' ids or UPNs (empty: every Steno user's email).
    public var users: [String]

    /// The setup of an account as stored.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` naming the setting that is missing or wrong.
    public init(account: CalendarAccount) throws {
        try self.init(settings: account.settings)
    }

    /// The setup of a settings table (`mode`, `client_id`, `tenant`, `authority`, `graph_url`, `users`).
    public init(settings: [String: String]) throws {
        guard let mode = Mode(rawValue: settings["mode"] ?? Mode.delegated.rawValue) else {
            throw CalendarSyncError.badSource("the Graph account's mode must be delegated or application, not \(settings["mode"] ?? "")")
        }
        guard let clientID = settings["client_id"], !clientID.isEmpty else {
            throw CalendarSyncError.badSource("the Graph account has no client id (the application registered in Microsoft Entra)")
        }
        self.mode = mode
        self.clientID = clientID
        self.endpoints = try GraphEndpoints(settings: settings)
        self.users = Self.userList(settings["users"])
        if mode == .application, ["common", "organizations", "consumers"].contains(endpoints.tenant.lowercased()) {
            throw CalendarSyncError.badSource("an organisation (application) account needs its tenant id or domain, not \(endpoints.tenant)")
        }
    }

    /// A comma-separated list of users, trimmed, without empty entries.
    public static func userList(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    var grant: GraphAuthorizer.Grant {
        switch mode {
        case .delegated: return .delegated
        case .application: return .clientCredentials(scope: endpoints.applicationScope)
        }
    }

    /// The exact command that gives the account working credentials again.
    public func fixCommand(accountID: Int64) -> String {
        switch mode {
        case .delegated: return "steno accounts signin \(accountID)"
        case .application: return "steno accounts signin \(accountID) --client-secret-file FILE"
        }
    }
}
