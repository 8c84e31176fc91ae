import Foundation

extension GraphDouble {
    /// Holds every Graph response `milliseconds` before sending it, so concurrent requests
    /// overlap at the server as they do at Microsoft's.
    public func setGraphResponseDelay(milliseconds: Int) {
        service.state.withLock { $0.graphDelayMilliseconds = max(0, milliseconds) }
    }

    /// The most Graph requests seen in flight at once for a mailbox (a user principal name).
    public func peakConcurrentRequests(mailbox: String) -> Int {
        service.state.withLock { $0.peakInFlight[mailbox.lowercased()] ?? 0 }
    }

    /// Requests refused with 429 `ApplicationThrottled` for going over the mailbox's limit.
    public var mailboxConcurrencyRefusals: Int { service.state.withLock { $0.concurrencyRefusals } }
}

extension GraphDoubleService {
    /// Exchange's MailboxConcurrency limit: an application may have four requests in flight
    /// per mailbox; a fifth is answered 429 `ApplicationThrottled`.
    static let mailboxConcurrencyLimit = 4

    /// Counts a Graph request as in flight for its mailbox until ``leave(_:)``. Returns the
    /// mailbox (nil for requests that read none), the refusal when it is over the limit, and
    /// how long to hold the response.
    func enter(_ request: GraphDouble.Request) -> (mailbox: String?, refusal: GraphDoubleResponse?, delay: Int) {
        let path = Self.split(request.uri).0
        let segments = path.split(separator: "/").map(String.init)
        guard segments.first == "v1.0", segments.count >= 2 else { return (nil, nil, 0) }
        let token = request.header("authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        return state.withLock { state in
            let mailbox: String?
            if segments[1] == "me" {
                mailbox = token.flatMap { state.accessTokens[$0] }.flatMap { $0.principal.hasPrefix("user:") ? String($0.principal.dropFirst(5)) : nil }
            } else if segments[1] == "users", segments.count >= 3 {
                mailbox = (segments[2].removingPercentEncoding ?? segments[2]).lowercased()
            } else {
                mailbox = nil
            }
            guard let mailbox else { return (nil, nil, state.graphDelayMilliseconds) }
            let count = state.inFlight[mailbox, default: 0] + 1
            state.inFlight[mailbox] = count
            state.peakInFlight[mailbox] = max(state.peakInFlight[mailbox] ?? 0, count)
            guard count <= Self.mailboxConcurrencyLimit else {
                state.concurrencyRefusals += 1
                let refusal = GraphDoubleResponse.graphError(
                    429, "ApplicationThrottled", "Application is over its MailboxConcurrency limit.", headers: [("Retry-After", "1")])
                return (mailbox, refusal, state.graphDelayMilliseconds)
            }
            return (mailbox, nil, state.graphDelayMilliseconds)
        }
    }

    /// The request's response was sent.
    func leave(_ mailbox: String?) {
        guard let mailbox else { return }
        state.withLock { $0.inFlight[mailbox, default: 1] -= 1 }
    }
}
