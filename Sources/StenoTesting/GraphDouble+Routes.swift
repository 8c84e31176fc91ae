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
        let grant = state.withLock { state in token.flatMap { state.accessTokens[$0] } }
        guard let grant else {
            return .graphError(401, "InvalidAuthenticationToken", "Access token has expired or is not yet valid.",
                               headers: [("WWW-Authenticate", "Bearer realm=\"\", error=\"invalid_token\"")])
        }
        if let fault = state.withLock({ $0.faults.isEmpty ? nil : $0.faults.removeFirst() }) {
            return .graphError(fault.status, fault.code, "injected fault", headers: fault.retryAfter.map { [("Retry-After", $0)] } ?? [])
        }
        let principal = grant.principal
        // The mailbox: `me` (delegated) or `users/{upn}` (the user themself, or an application).
        let mailbox: String
        var rest: [String]
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
        if request.method == "GET", rest == ["calendars"] { return calendarListing(mailbox: mailbox, base: base) }
        // `calendars/{id}/…` reads one calendar; the mailbox path alone, its default calendar.
        var store = mailbox
        var path = mailboxPath
        if rest.first == "calendars", rest.count >= 3 {
            guard let route = calendarRoute(rest[1], mailbox: mailbox, mailboxPath: mailboxPath) else {
                return .graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            }
            (store, path) = route
            rest.removeFirst(2)
        }
        switch (request.method, rest.count) {
        case ("GET", 0):
            return .json(200, ["id": "id-\(mailbox)", "userPrincipalName": mailbox, "mail": mailbox, "displayName": mailbox])
        case ("GET", 1) where rest == ["calendarView"]:
            return calendarView(request, store: store, path: path, query: query, base: base, utc: utc)
        case ("GET", 2) where rest == ["calendarView", "delta"]:
            return delta(request, mailbox: store, mailboxPath: path, query: query, base: base, utc: utc)
        case ("GET", 2) where rest[0] == "events":
            guard let event = state.withLock({ $0.mailboxes[store]?[rest[1]] }) ?? master(rest[1], mailbox: store) else {
                return .graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            }
            return GraphDoubleResponse(status: 200, body: render(event, utc: utc))
        case ("PATCH", 2) where rest[0] == "events", ("POST", 1) where rest[0] == "events",
            ("POST", 2) where rest == ["calendar", "events"]:
            guard grant.canWrite else {
                return .graphError(403, "ErrorAccessDenied", "Access is denied. Check credentials and try again.")
            }
            return write(request, mailbox: store, id: request.method == "PATCH" ? rest[1] : nil, utc: utc)
        default:
            return .graphError(400, "BadRequest", "unsupported request \(request.method) \(rest.joined(separator: "/"))")
        }
    }

    /// PATCH (id given) or POST (a new event): recorded, then applied to the store (`mailbox`
    /// is the calendar's store key, ``GraphDouble/storeKey(mailbox:calendar:)``).
    ///
    /// A PATCH with `If-Match` other than the event's `@odata.etag` is refused with 412, as
    /// Exchange does; a PATCH of a series master changes its occurrences (not its exceptions);
    /// a POST with a `transactionId` seen before returns the event that first created.
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
            if state.withLock({ $0.changesBeforeWrite[id].map { $0 > 0 } ?? false }) {
                state.withLock { $0.changesBeforeWrite[id, default: 0] -= 1 }
                if let changed = state.withLock({ $0.mailboxes[mailbox]?[id] }) {
                    putEvent(changed, mailbox: mailbox)
                } else {
                    state.withLock { $0.masterGenerations[id, default: 0] += 1 }
                }
            }
            guard let existing = state.withLock({ $0.mailboxes[mailbox]?[id] }) ?? master(id, mailbox: mailbox) else {
                return .graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.")
            }
            if let condition = request.header("if-match"), condition != "*", condition != "W/\"\(existing.changeKey)\"" {
                return .graphError(
                    412, "ErrorIrresolvableConflict",
                    "The send or update operation could not be performed because the change key passed in the request does not match the current change key for the item.")
            }
            if existing.type == "seriesMaster" {
                return patchMaster(existing, object: object, mailbox: mailbox, utc: utc)
            }
            event = existing
        } else {
            let transaction = object["transactionId"] as? String
            if let transaction, let earlier = state.withLock({ $0.transactions[transaction] }),
                let created = state.withLock({ $0.mailboxes[earlier.mailbox]?[earlier.id] })
            {
                return GraphDoubleResponse(status: 201, body: render(created, utc: utc))
            }
            guard let start = date("start"), let end = date("end") else {
                return .graphError(400, "ErrorInvalidRequest", "an event needs start and end")
            }
            let number = state.withLock { state -> Int in
                state.tokenCounter += 1
                return state.tokenCounter
            }
            let user = String(mailbox.split(separator: "/").first ?? Substring(mailbox))
            event = GraphDouble.Event(id: "created-\(number)", subject: "", start: start, end: end, organizer: GraphDouble.Person(email: user))
            if let transaction { state.withLock { $0.transactions[transaction] = (mailbox, event.id) } }
        }
        if let subject = object["subject"] as? String { event.subject = subject }
        if let start = date("start") { event.start = start }
        if let end = date("end") { event.end = end }
        if let location = (object["location"] as? [String: Any])?["displayName"] as? String { event.location = location }
        if id != nil, event.type == "occurrence" { event.type = "exception" }
        putEvent(event, mailbox: mailbox)
        let stored = state.withLock { $0.mailboxes[mailbox]?[event.id] } ?? event
        return GraphDoubleResponse(status: id == nil ? 201 : 200, body: render(stored, utc: utc))
    }

    /// A series master as Graph shows it: made from its first occurrence (the double stores
    /// occurrences only); nil when no event names `id` as its master.
    func master(_ id: String, mailbox: String) -> GraphDouble.Event? {
        state.withLock { state -> GraphDouble.Event? in
            guard let first = state.mailboxes[mailbox]?.values.filter({ $0.seriesMasterId == id })
                .min(by: { ($0.originalStart ?? $0.start) < ($1.originalStart ?? $1.start) })
            else { return nil }
            var master = first
            master.id = id
            master.type = "seriesMaster"
            master.seriesMasterId = nil
            master.iCalUId = first.uid
            master.originalStart = nil
            master.changeKey = "ck-m\(state.masterGenerations[id] ?? 0)"
            return master
        }
    }

    /// A PATCH of a series master: the subject goes to every occurrence that is not an exception.
    private func patchMaster(_ master: GraphDouble.Event, object: [String: Any], mailbox: String, utc: Bool) -> GraphDoubleResponse {
        let subject = object["subject"] as? String
        let occurrences = state.withLock { state in
            state.masterGenerations[master.id, default: 0] += 1
            return state.mailboxes[mailbox]?.values.filter { $0.seriesMasterId == master.id && $0.type == "occurrence" } ?? []
        }
        for var occurrence in occurrences {
            if let subject { occurrence.subject = subject }
            putEvent(occurrence, mailbox: mailbox)
        }
        guard let renamed = self.master(master.id, mailbox: mailbox) else {
            return .graphError(404, "ErrorItemNotFound", "The specified object was not found in the store.")
        }
        return GraphDoubleResponse(status: 200, body: render(renamed, utc: utc))
    }

    /// The JSON of an event (UTC renders are cached until the event changes).
    func render(_ event: GraphDouble.Event, utc: Bool) -> Data {
        let cacheable = utc && event.type != "seriesMaster"
        if cacheable, let cached = state.withLock({ $0.renderCache[event.id] }) { return cached }
        var object = event.json(utc: utc)
        object["@odata.type"] = "#microsoft.graph.event"
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        if cacheable { state.withLock { $0.renderCache[event.id] = data } }
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
