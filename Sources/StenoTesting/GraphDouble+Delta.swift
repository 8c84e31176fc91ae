import Foundation

extension GraphDoubleService {
    /// The state a `$skiptoken` / `$deltatoken` encodes (opaque to clients: base64url JSON).
    struct DeltaToken: Codable, Hashable {
        /// Mailbox and window of the round's first request.
        var mailbox: String
        var start: Double
        var end: Double
        /// Changes after this sequence number are listed; -1 for a full round.
        var since: Int
        /// The sequence number when the round began (what its delta link will start from).
        var round: Int
        var offset: Int
        var epoch: Int
        var pageSize: Int

        var encoded: String {
            let data = (try? JSONEncoder().encode(self)) ?? Data()
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        init(mailbox: String, start: Double, end: Double, since: Int, round: Int, offset: Int, epoch: Int, pageSize: Int) {
            self.mailbox = mailbox
            self.start = start
            self.end = end
            self.since = since
            self.round = round
            self.offset = offset
            self.epoch = epoch
            self.pageSize = pageSize
        }

        init?(_ text: String) {
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            guard let data = Data(base64Encoded: base64), let token = try? JSONDecoder().decode(DeltaToken.self, from: data) else { return nil }
            self = token
        }

        /// The round this page belongs to (the cache key of its listing).
        var roundKey: String { "\(mailbox)|\(start)|\(end)|\(since)|\(round)" }
    }

    /// `GET …/calendarView/delta`: a first request with `startDateTime`/`endDateTime`, or a
    /// `$skiptoken` (next page) / `$deltatoken` (a new round of changes).
    func delta(
        _ request: GraphDouble.Request, mailbox: String, mailboxPath: String, query: [String: String], base: String, utc: Bool
    ) -> GraphDoubleResponse {
        let prefer = request.header("prefer") ?? ""
        let pageSize = Self.maxPageSize(prefer) ?? state.withLock { $0.defaultPageSize }
        var token: DeltaToken
        if let text = query["$skiptoken"] ?? query["$deltatoken"] {
            guard var parsed = DeltaToken(text), parsed.mailbox == mailbox else {
                return .graphError(400, "BadRequest", "The delta token is not valid.")
            }
            let (epoch, code) = state.withLock { ($0.epoch, $0.resyncCode) }
            guard parsed.epoch == epoch else {
                return .graphError(410, code, "The sync state generation is not found. The delta token is expired and data must be synchronized again.")
            }
            if query["$deltatoken"] != nil {
                // A new round: changes since the last one, up to now.
                parsed.round = state.withLock { $0.seq }
                parsed.offset = 0
            }
            parsed.pageSize = pageSize
            token = parsed
        } else {
            guard let startText = query["startDateTime"], let endText = query["endDateTime"], let start = Self.parseDate(startText),
                let end = Self.parseDate(endText)
            else {
                return .graphError(400, "ErrorInvalidParameter",
                                   "This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.")
            }
            let (seq, epoch) = state.withLock { ($0.seq, $0.epoch) }
            token = DeltaToken(
                mailbox: mailbox, start: start.timeIntervalSince1970, end: end.timeIntervalSince1970, since: -1, round: seq, offset: 0,
                epoch: epoch, pageSize: pageSize)
        }
        let listing = self.listing(token)
        let slice = listing[min(token.offset, listing.count)..<min(token.offset + token.pageSize, listing.count)]
        var body = Data("{\"@odata.context\":\"\(base)/v1.0/$metadata#Collection(event)\",\"value\":[".utf8)
        for (index, entry) in slice.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            switch entry {
            case .event(let event): body.append(render(event, utc: utc))
            case .removed(let id):
                body.append(Data("{\"@odata.type\":\"#microsoft.graph.event\",\"id\":\"\(id)\",\"@removed\":{\"reason\":\"deleted\"}}".utf8))
            }
        }
        let link: String
        if token.offset + token.pageSize < listing.count {
            var next = token
            next.offset += token.pageSize
            link = "\"@odata.nextLink\":\"\(base)/v1.0/\(mailboxPath)/calendarView/delta?$skiptoken=\(next.encoded)\""
        } else {
            var next = token
            next.since = token.round
            next.offset = 0
            link = "\"@odata.deltaLink\":\"\(base)/v1.0/\(mailboxPath)/calendarView/delta?$deltatoken=\(next.encoded)\""
        }
        body.append(Data("],\(link)}".utf8))
        return GraphDoubleResponse(status: 200, headers: [("Preference-Applied", "odata.maxpagesize=\(pageSize)")], body: body)
    }

    enum DeltaEntry {
        case event(GraphDouble.Event)
        case removed(String)
    }

    /// The round's entries in a stable order: a full round lists the events in the window;
    /// a round of changes lists changed events (those no longer in the window as removed)
    /// and deleted ones, in the order they changed.
    private func listing(_ token: DeltaToken) -> [DeltaEntry] {
        state.withLock { state -> [DeltaEntry] in
            if let cached = state.listingCache[token.roundKey] { return cached }
            let listed = Self.list(token, state: state)
            state.listingCache[token.roundKey] = listed
            return listed
        }
    }

    private static func list(_ token: DeltaToken, state: State) -> [DeltaEntry] {
        let window = (start: Date(timeIntervalSince1970: token.start), end: Date(timeIntervalSince1970: token.end))
        let events = state.mailboxes[token.mailbox] ?? [:]
        if token.since < 0 {
            return events.values.filter { $0.overlaps(window) && (state.changed[$0.id] ?? 0) <= token.round }
                .sorted { $0.id < $1.id }.map { .event($0) }
        }
        var changes: [(seq: Int, entry: DeltaEntry, id: String)] = []
        for event in events.values {
            guard let seq = state.changed[event.id], seq > token.since, seq <= token.round else { continue }
            changes.append((seq, event.overlaps(window) ? .event(event) : .removed(event.id), event.id))
        }
        for (id, tombstone) in state.tombstones where tombstone.mailbox == token.mailbox && tombstone.seq > token.since && tombstone.seq <= token.round {
            changes.append((tombstone.seq, .removed(id), id))
        }
        return changes.sorted { ($0.seq, $0.id) < ($1.seq, $1.id) }.map(\.entry)
    }

    /// `odata.maxpagesize=N` from a Prefer header.
    static func maxPageSize(_ prefer: String) -> Int? {
        guard let range = prefer.range(of: "odata.maxpagesize=") else { return nil }
        let digits = prefer[range.upperBound...].prefix { $0.isNumber }
        return Int(digits).map { max(1, min($0, 1000)) }
    }
}
