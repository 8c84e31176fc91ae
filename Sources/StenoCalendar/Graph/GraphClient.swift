import Foundation
import StenoJSON
import Synchronization

/// Sends one Graph account's requests: the bearer token (renewed once after a 401), at most
/// four requests in flight per mailbox, throttling answered by waiting the server's
/// `Retry-After` (429, 503, 504; bounded in count and delay), and counters for the report.
final class GraphClient: Sendable {
    let transport: HTTPTransport
    let authorizer: GraphAuthorizer
    let gate: GraphRequestGate
    /// The application (client id) the requests are counted against per mailbox.
    let clientID: String
    /// Whose mailbox `me` is (a delegated account's user), so its requests share the gate
    /// with an organisation account's requests to `users/{user}`.
    let signedInMailbox: String
    let retry: GraphProvider.RetryPolicy
    private let counters = Mutex<(requests: Int, bytes: Int, retries: Int)>((0, 0, 0))

    init(
        transport: HTTPTransport, authorizer: GraphAuthorizer, gate: GraphRequestGate, clientID: String = "", signedInMailbox: String = "me",
        retry: GraphProvider.RetryPolicy
    ) {
        self.transport = transport
        self.authorizer = authorizer
        self.gate = gate
        self.clientID = clientID
        self.signedInMailbox = signedInMailbox
        self.retry = retry
    }

    /// The gate's key for a mailbox or calendar path (`me`, `users/{user}`, `me/calendars/{id}`): application and user.
    func gateKey(_ path: String) -> String {
        // A calendar's path (`me/calendars/{id}`) takes its mailbox's slots.
        let mailbox = GraphMailbox.path(ofCalendar: path)
        let user = mailbox == "me" ? signedInMailbox : mailbox.hasPrefix("users/") ? String(mailbox.dropFirst(6)) : mailbox
        return (clientID + "/" + user).lowercased()
    }

    /// Requests sent and bytes received so far, token requests included.
    func totals() async -> (requests: Int, bytes: Int, retries: Int) {
        let own = counters.withLock { $0 }
        let tokenRequests = await authorizer.requests
        let tokenBytes = await authorizer.bytesReceived
        return (own.requests + tokenRequests, own.bytes + tokenBytes, own.retries)
    }

    /// GETs a Graph URL as JSON.
    ///
    /// - Returns: the response; statuses other than 401/429/503/504 are the caller's to read.
    /// - Throws: as ``send(_:_:mailbox:body:headers:)``.
    func get(_ url: URL, mailbox: String, headers extra: [(String, String)] = []) async throws -> HTTPResponseValue {
        try await send("GET", url, mailbox: mailbox, headers: extra)
    }

    /// Sends one Graph request (a JSON `body` for writes).
    ///
    /// - Returns: the response; statuses other than 401/429/503/504 are the caller's to read.
    /// - Throws: ``CalendarSyncError/needsCredentials(_:)`` when a renewed token is refused too,
    ///   ``CalendarSyncError/retryLater(after:reason:)`` when throttling outlasts the policy,
    ///   ``CalendarSyncError/badSource(_:)`` when Graph cannot be reached.
    func send(
        _ method: String, _ url: URL, mailbox: String, body: Data? = nil, headers extra: [(String, String)] = []
    ) async throws -> HTTPResponseValue {
        var renewed = false
        var throttled = 0
        let content: [(String, String)] = body == nil ? [] : [("Content-Type", "application/json")]
        while true {
            let authorization = try await authorizer.header()
            let request = HTTPRequestValue(
                method: method, url: url, headers: [("Accept", "application/json"), ("Authorization", authorization)] + content + extra,
                body: body)
            let response: HTTPResponseValue
            do {
                response = try await gate.run(mailbox: gateKey(mailbox)) { try await self.transport.send(request) }
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
                if !renewed, try await authorizer.recover(fromRejected: authorization) {
                    renewed = true
                    continue
                }
                throw CalendarSyncError.needsCredentials(
                    "Microsoft Graph refused the renewed access token (HTTP 401 to \(method) \(url.path)): \(GraphError(response).description)")
            case 429, 503, 504:
                let delay = response.retryAfter() ?? retry.defaultDelay(attempt: throttled)
                throttled += 1
                guard throttled <= retry.maximumRetries, delay <= retry.maximumDelay else {
                    throw CalendarSyncError.retryLater(
                        after: delay, reason: "Microsoft Graph is throttling \(mailbox) (HTTP \(response.status) to \(method) \(url.path))")
                }
                counters.withLock { $0.retries += 1 }
                try await Task.sleep(for: delay)
            default:
                return response
            }
        }
    }
}

/// A Graph error body: `{"error": {"code": "…", "message": "…"}}`.
struct GraphError: Sendable, Hashable, CustomStringConvertible {
    var status: Int
    var code: String?
    var message: String?

    init(_ response: HTTPResponseValue) {
        status = response.status
        let error = (try? JSONValue.parse(response.body))?["error"]
        code = error?["code"]?.stringValue
        message = error?["message"]?.stringValue
    }

    /// Whether the delta state is gone and the round must start over (410 Gone, or the codes
    /// Outlook uses: `syncStateNotFound`, `syncStateInvalid`, `resyncRequired`).
    var requiresResync: Bool {
        if status == 410 { return true }
        let known = ["syncstatenotfound", "syncstateinvalid", "resyncrequired"]
        return code.map { known.contains($0.lowercased()) } ?? false
    }

    var description: String {
        let detail = [code, message].compactMap { $0 }.joined(separator: ": ")
        return "HTTP \(status)" + (detail.isEmpty ? "" : " \(detail)")
    }
}
