import Foundation

extension GraphDoubleService {
    /// Answers one request, recording and counting it.
    func handle(_ request: GraphDouble.Request) -> GraphDoubleResponse {
        let base = "http://" + (request.header("host") ?? "127.0.0.1")
        let (path, query) = Self.split(request.uri)
        let segments = path.split(separator: "/").map(String.init)
        var response: GraphDoubleResponse
        if request.method == "POST", segments.count == 4, segments[1] == "oauth2", segments[2] == "v2.0" {
            response = identity(request, endpoint: segments[3], base: base)
        } else if segments.first == "v1.0" {
            response = graph(request, segments: Array(segments.dropFirst()), query: query, base: base)
        } else {
            response = .graphError(404, "ResourceNotFound", "no route for \(request.method) \(path)")
        }
        state.withLock { state in
            state.requestCount += 1
            state.bytesSent += response.body.count
            if state.recordBodies { state.requests.append(request) }
        }
        if response.status >= 400 { response.headers.append(("request-id", UUID().uuidString)) }
        return response
    }

    private func graph(_ request: GraphDouble.Request, segments: [String], query: [String: String], base: String) -> GraphDoubleResponse {
        let token = request.header("authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let principal: String? = state.withLock { state in token.flatMap { state.accessTokens[$0] } }
        guard let principal else {
            return .graphError(401, "InvalidAuthenticationToken", "Access token has expired or is not yet valid.",
                               headers: [("WWW-Authenticate", "Bearer realm=\"\", error=\"invalid_token\"")])
        }
        if let fault = state.withLock({ $0.faults.isEmpty ? nil : $0.faults.removeFirst() }) {
            return .graphError(fault.status, fault.code, "injected fault", headers: fault.retryAfter.map { [("Retry-After", $0)] } ?? [])
        }
        // The mailbox: `me` (delegated) or `users/{upn}` (the user themself, or an application).
        let mailbox: String
        let rest: [String]
        let mailboxPath: String
        if segments.first == "me" {
            guard principal.hasPrefix("user:") else {
                return .graphError(400, "BadRequest", "/me request is only valid with delegated authentication flow.")
            }
            mailbox = String(principal.dropFirst(5))
            rest = Array(segments.dropFirst())
            mailboxPath = "me"
        } else if segments.first == "users", segments.count >= 2 {
            let user = (segments[1].removingPercentEncoding ?? segments[1]).lowercased()
            guard principal.hasPrefix("app:") || principal == "user:\(user)" else {
                return .graphError(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
            }
            mailbox = user
            rest = Array(segments.dropFirst(2))
            mailboxPath = "users/" + segments[1]
        } else {
            return .graphError(400, "BadRequest", "Resource not found for the segment '\(segments.first ?? "")'.")
        }
        let utc = (request.header("prefer") ?? "").contains("outlook.timezone=\"UTC\"")
        switch (request.method, rest.count) {
        case ("GET", 0):
            return .json(200, ["id": "id-\(mailbox)", "userPrincipalName": mailbox, "mail": mailbox, "displayName": mailbox])
        case ("GET", 2) where rest == ["calendarView", "delta"]:
            return delta(request, mailbox: mailbox, mailboxPath: mailboxPath, query: query, base: base, utc: utc)
        case ("GET", 2) where rest[0] == "events":
            guard let event = state.withLock({ $0.mailboxes[mailbox]?[rest[1]] }) else {
                return .graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            }
            return GraphDoubleResponse(status: 200, body: render(event, utc: utc))
        case ("PATCH", 2) where rest[0] == "events":
            return write(request, mailbox: mailbox, id: rest[1], utc: utc)
        case ("POST", 1) where rest[0] == "events", ("POST", 2) where rest == ["calendar", "events"]:
            return write(request, mailbox: mailbox, id: nil, utc: utc)
        default:
            return .graphError(400, "BadRequest", "unsupported request \(request.method) \(rest.joined(separator: "/"))")
        }
    }

    /// PATCH (id given) or POST (a new event): recorded, then applied to the store.
    private func write(_ request: GraphDouble.Request, mailbox: String, id: String?, utc: Bool) -> GraphDoubleResponse {
        state.withLock { $0.writes.append(request) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(request.body.utf8))) as? [String: Any] else {
            return .graphError(400, "RequestBodyRead", "the body is not a JSON object")
        }
        func date(_ key: String) -> Date? {
            ((object[key] as? [String: Any])?["dateTime"] as? String).flatMap(Self.parseDate)
        }
        var event: GraphDouble.Event
        if let id {
            guard let existing = state.withLock({ $0.mailboxes[mailbox]?[id] }) else {
                return .graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            }
            event = existing
        } else {
            guard let start = date("start"), let end = date("end") else {
                return .graphError(400, "ErrorInvalidRequest", "an event needs start and end")
            }
            let number = state.withLock { state -> Int in
                state.tokenCounter += 1
                return state.tokenCounter
            }
            event = GraphDouble.Event(id: "created-\(number)", subject: "", start: start, end: end, organizer: GraphDouble.Person(email: mailbox))
        }
        if let subject = object["subject"] as? String { event.subject = subject }
        if let start = date("start") { event.start = start }
        if let end = date("end") { event.end = end }
        putEvent(event, mailbox: mailbox)
        let stored = state.withLock { $0.mailboxes[mailbox]?[event.id] } ?? event
        return GraphDoubleResponse(status: id == nil ? 201 : 200, body: render(stored, utc: utc))
    }

    /// The JSON of an event (UTC renders are cached until the event changes).
    func render(_ event: GraphDouble.Event, utc: Bool) -> Data {
        if utc, let cached = state.withLock({ $0.renderCache[event.id] }) { return cached }
        var object = event.json(utc: utc)
        object["@odata.type"] = "#microsoft.graph.event"
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        if utc { state.withLock { $0.renderCache[event.id] = data } }
        return data
    }

    func putEvent(_ event: GraphDouble.Event, mailbox: String) {
        state.withLock { state in
            var stored = event
            let previous = state.mailboxes[mailbox]?[event.id]
            let generation = (previous.map { Int($0.changeKey.dropFirst(3)) ?? 0 } ?? -1) + 1
            stored.changeKey = "ck-\(generation)"
            state.seq += 1
            state.mailboxes[mailbox, default: [:]][event.id] = stored
            state.changed[event.id] = state.seq
            state.tombstones[event.id] = nil
            state.renderCache[event.id] = nil
            state.listingCache.removeAll()
        }
    }

    /// Path and decoded query parameters of a request URI.
    static func split(_ uri: String) -> (String, [String: String]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if let name = parts.first { query[name] = parts.count > 1 ? parts[1] : "" }
        }
        return (String(uri[..<mark]), query)
    }

    /// An ISO 8601 date-time as Graph accepts it: with `Z`, an offset, or none (UTC).
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for candidate in [text, text + "Z"] {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: candidate) { return date }
            formatter.formatOptions = [.withInternetDateTime]
            if let date = formatter.date(from: candidate) { return date }
        }
        // Seven fractional digits, as Graph writes them.
        if let dot = text.firstIndex(of: ".") { return parseDate(String(text[..<dot])) }
        return nil
    }
}
