import Foundation

/// Where a Microsoft Graph account signs in and reads: the identity platform authority with
/// its tenant, and the Graph base URL. Both are settings so national clouds (Azure China,
/// US Government) and the tests' double work like the public cloud.
///
/// Account settings: `authority` (default `https://login.microsoftonline.com`), `tenant`
/// (`common`, `organizations`, a domain or a tenant id), `graph_url` (default
/// `https://graph.microsoft.com/v1.0`).
public struct GraphEndpoints: Sendable, Hashable {
    public static let defaultAuthority = "https://login.microsoftonline.com"
    public static let defaultGraphURL = "https://graph.microsoft.com/v1.0"

    public var authority: URL
    public var tenant: String
    public var graphURL: URL

    public init(authority: URL, tenant: String, graphURL: URL) {
        self.authority = authority
        self.tenant = tenant
        self.graphURL = graphURL
    }

    /// The endpoints of an account's settings.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` naming the setting that is not an http(s) URL.
    public init(settings: [String: String]) throws {
        self.authority = try Self.url(settings["authority"] ?? Self.defaultAuthority, setting: "authority")
        self.graphURL = try Self.url(settings["graph_url"] ?? Self.defaultGraphURL, setting: "graph_url")
        let tenant = settings["tenant"]?.trimmingCharacters(in: .whitespaces) ?? ""
        self.tenant = tenant.isEmpty ? "common" : tenant
    }

    /// `{authority}/{tenant}/oauth2/v2.0/token`.
    public var tokenURL: URL { authority.appendingPathComponent(tenant).appendingPathComponent("oauth2/v2.0/token") }

    /// `{authority}/{tenant}/oauth2/v2.0/devicecode`.
    public var deviceCodeURL: URL { authority.appendingPathComponent(tenant).appendingPathComponent("oauth2/v2.0/devicecode") }

    /// The application-permission scope of this Graph (`https://graph.microsoft.com/.default`):
    /// the resource is the Graph host, so a national cloud asks for its own.
    public var applicationScope: String {
        var components = URLComponents()
        components.scheme = graphURL.scheme
        components.host = graphURL.host
        components.port = graphURL.port
        return (components.url?.absoluteString ?? "https://graph.microsoft.com") + "/.default"
    }

    /// Delegated scopes: read, or read and write (for write-back), plus a refresh token.
    public static func delegatedScope(write: Bool) -> String {
        write ? "offline_access Calendars.ReadWrite User.Read" : "offline_access Calendars.Read User.Read"
    }

    static func url(_ text: String, setting: String) throws -> URL {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw CalendarSyncError.badSource("the Graph account setting `\(setting)` is not an http(s) URL: \(text)")
        }
        return url
    }
}
