import Foundation
import StenoCore
import Synchronization

/// Sends one account's WebDAV requests: adds authorization and `Depth`, retries once after
/// an OAuth refresh, counts requests and bytes for the sync report, and turns the statuses
/// with a fixed meaning into ``CalendarSyncError``s (401 → needs credentials, 429/503 →
/// retry later). Other statuses are returned for the caller to interpret.
final class CalDAVClient: Sendable {
    let transport: HTTPTransport
    let authorizer: CalDAVAuthorizer
    /// The account URL as configured, named in error messages.
    let accountURL: String
    /// The account's id, for the command that renews its credentials; nil outside an account.
    let accountID: Int64?
    private let counters = Mutex<(requests: Int, bytes: Int)>((0, 0))

    init(transport: HTTPTransport, authorizer: CalDAVAuthorizer, accountURL: String, accountID: Int64? = nil) {
        self.transport = transport
        self.authorizer = authorizer
        self.accountURL = accountURL
        self.accountID = accountID
    }

    /// A client for a CalDAV account: Basic or Bearer from `credentials`, OAuth refresh when
    /// the account has a `token_url` setting, refreshed credentials handed to `save`.
    convenience init(
        account: CalendarAccount, credentials: CalendarCredentials?, transport: HTTPTransport,
        save: @escaping @Sendable (CalendarCredentials) async throws -> Void
    ) {
        let settings = account.settings
        let accountURL = settings["url"] ?? ""
        let refresh = settings["token_url"].flatMap(URL.init(string:)).map {
            CalDAVAuthorizer.RefreshSettings(tokenURL: $0, clientID: settings["client_id"])
        }
        let authorizer = CalDAVAuthorizer(
            credentials: credentials, user: settings["user"], refresh: refresh, transport: transport,
            accountName: "CalDAV account \(accountURL)", save: save)
        self.init(transport: transport, authorizer: authorizer, accountURL: accountURL, accountID: account.id)
    }

    /// Requests sent and response bytes received so far (token refreshes included).
    func totals() async -> (requests: Int, bytes: Int) {
        let own = counters.withLock { $0 }
        let refreshRequests = await authorizer.requests
        let refreshBytes = await authorizer.bytesReceived
        return (own.requests + refreshRequests, own.bytes + refreshBytes)
    }

    /// Sends a request with an XML body.
    ///
    /// - Throws: ``CalendarSyncError/needsCredentials(_:)`` on 401 (after one refresh for
    ///   OAuth accounts), ``CalendarSyncError/retryLater(after:reason:)`` on 429/503/504,
    ///   ``CalendarSyncError/badSource(_:)`` when the server cannot be reached.
    ///
    /// `contentType` describes `body`; `extraHeaders` are sent as given (preconditions of writes).
    func send(
        _ method: String, _ url: URL, depth: String? = nil, body: Data? = nil, contentType: String = "application/xml; charset=utf-8",
        extraHeaders: [(String, String)] = []
    ) async throws -> HTTPResponseValue {
        var attempt = 0
        while true {
            attempt += 1
            let authorization = try await authorizer.header()
            var headers: [(String, String)] = [("Accept", "application/xml, text/xml;q=0.9, */*;q=0.1")]
            if let depth { headers.append(("Depth", depth)) }
            if body != nil { headers.append(("Content-Type", contentType)) }
            headers += extraHeaders
            if let authorization { headers.append(("Authorization", authorization)) }
            let response: HTTPResponseValue
            do {
                response = try await transport.send(HTTPRequestValue(method: method, url: url, headers: headers, body: body))
            } catch let error as HTTPTransportError {
                counters.withLock { $0.requests += 1 }
                throw CalendarSyncError.badSource("\(method) \(url.absoluteString): \(error)")
            }
            counters.withLock {
                $0.requests += 1
                $0.bytes += response.body.count
            }
            switch response.status {
            case 401:
                if attempt == 1, try await authorizer.recover(fromRejected: authorization) { continue }
                let what = authorization == nil ? "no credentials are stored" : "the server refused the credentials"
                throw CalendarSyncError.needsCredentials(
                    "CalDAV account \(accountURL): \(what) (HTTP 401 to \(method) \(url.absoluteString)); "
                        + "give it the new password (an app-specific password for iCloud) or OAuth token with "
                        + "`steno accounts update \(accountID.map(String.init) ?? "ID") --password-file FILE` (or --bearer-token-file FILE)")
            case 429, 503, 504:
                throw HTTPStatusMeaning.error(for: response, doing: "\(method) \(url.absoluteString)")
            default:
                return response
            }
        }
    }

    /// Sends a request that must answer 207 and parses the multistatus.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` for another status (method, URL and
    ///   status in the message), ``CalendarSyncError/malformedResponse(_:)`` for an unreadable body.
    func multistatus(_ method: String, _ url: URL, depth: String?, body: Data) async throws -> Multistatus {
        let response = try await send(method, url, depth: depth, body: body)
        return try Self.multistatus(of: response, method: method, url: url)
    }

    /// The multistatus of a response that should be one.
    static func multistatus(of response: HTTPResponseValue, method: String, url: URL) throws -> Multistatus {
        guard response.status == 207 else {
            throw HTTPStatusMeaning.error(for: response, doing: "\(method) \(url.absoluteString)")
        }
        do {
            return try MultistatusParser.parse(response.body, base: response.url)
        } catch {
            throw CalendarSyncError.malformedResponse("\(method) \(url.absoluteString): \(error)")
        }
    }
}
