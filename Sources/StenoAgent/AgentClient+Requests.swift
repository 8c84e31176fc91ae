import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StenoAgentClient {
    // MARK: - Pairing

    /// Trades a one-time pairing code (`steno devices pair`) for the device's token:
    /// `POST /sync/devices/register`.
    ///
    /// - Parameters:
    ///   - pairingCode: the code as the user typed it (case, `-` and spaces do not matter).
    ///   - label: a name for the device; the one given to `steno devices pair` wins.
    ///   - timeZone: the zone of events sent without one, e.g. `TimeZone.current.identifier`.
    /// - Returns: the token (store it in the Keychain: it is shown once) and the device.
    /// - Throws: ``AgentClientError/unauthorized(message:)`` for a wrong, expired or used code.
    public static func register(
        baseURL: URL, pairingCode: String, label: String? = nil, timeZone: String? = nil, session: URLSession = .shared,
        timeout: TimeInterval = 60
    ) async throws(AgentClientError) -> DeviceRegistration {
        let body = try encode(RegisterRequest(pairingCode: pairingCode, label: label, timeZone: timeZone))
        let url = try url(baseURL, "sync/devices/register")
        let data = try await send(session: session, timeout: timeout, url: url, method: "POST", body: body, token: nil)
        return try decode(DeviceRegistration.self, from: data)
    }

    /// A client using the token of `registration`.
    public init(baseURL: URL, registration: DeviceRegistration, session: URLSession = .shared, timeout: TimeInterval = 60) {
        self.init(baseURL: baseURL, token: registration.deviceToken, session: session, timeout: timeout)
    }

    // MARK: - Push

    /// Upserts events (and deletions): `POST /sync/apple/events/upsert`, in requests of at most
    /// ``upsertBatchSize`` events.
    ///
    /// A bad event does not stop the others: its result says `error` with the field and why.
    /// A request over the server's body limit (`413`, events with huge attendee lists) is split
    /// in halves until it fits; an event too large on its own gets an `error` result.
    /// When a request fails otherwise, the batches before it are stored and the error is
    /// thrown; upserting them again is harmless (an unchanged event is not rewritten).
    /// - Returns: one result per event, in order, and the last answer's `serverTime`.
    public func upsert(_ events: [DeviceEvent]) async throws(AgentClientError) -> UpsertResponse {
        var combined = UpsertResponse(results: [], serverTime: nil)
        var index = 0
        while index < events.count {
            let batch = events[index..<min(index + Self.upsertBatchSize, events.count)]
            let answer = try await upsertFitting(batch)
            combined.results += answer.results
            combined.serverTime = answer.serverTime ?? combined.serverTime
            index += batch.count
        }
        return combined
    }

    /// One request for `batch`, or halves of it while the server says it is too large.
    private func upsertFitting(_ batch: ArraySlice<DeviceEvent>) async throws(AgentClientError) -> UpsertResponse {
        do throws(AgentClientError) {
            let answer = try await send(
                "POST", "sync/apple/events/upsert", body: try Self.encode(UpsertRequest(events: Array(batch))), as: UpsertResponse.self)
            guard answer.results.count == batch.count else {
                throw .invalidResponse(message: "\(answer.results.count) results for \(batch.count) events")
            }
            return answer
        } catch {
            guard case .payloadTooLarge(let message) = error else { throw error }
            guard batch.count > 1 else {
                let event = batch.first
                let result = UpsertResult(
                    externalId: event?.externalId ?? "", occurrenceDate: event?.occurrenceDate, status: .error,
                    error: "the event is larger than the server takes in one request: \(message)")
                return UpsertResponse(results: [result], serverTime: nil)
            }
            let middle = batch.startIndex + batch.count / 2
            let first = try await upsertFitting(batch[..<middle])
            let second = try await upsertFitting(batch[middle...])
            return UpsertResponse(results: first.results + second.results, serverTime: second.serverTime ?? first.serverTime)
        }
    }

    // MARK: - Pull

    /// This device's events as Steno holds them, changed since `since` (0: all):
    /// `GET /sync/apple/events/changes`, following `hasMore` until the end.
    public func deviceChanges(since: Int64, includeDeleted: Bool = true, pageSize: Int? = nil) async throws(AgentClientError)
        -> ChangeFeed
    {
        try await feed("sync/apple/events/changes", since: since, includeDeleted: includeDeleted, pageSize: pageSize)
    }

    /// Every event the device's owner may see, from every provider, plus the events Steno asks
    /// this device to create, changed since `since` (0: all): `GET /sync/events/changes`,
    /// following `hasMore` until the end.
    public func changes(since: Int64, includeDeleted: Bool = true, pageSize: Int? = nil) async throws(AgentClientError) -> ChangeFeed {
        try await feed("sync/events/changes", since: since, includeDeleted: includeDeleted, pageSize: pageSize)
    }

    /// One feed read to its end: each page's `serverTime` is the next page's `since`.
    func feed(_ path: String, since: Int64, includeDeleted: Bool, pageSize: Int?) async throws(AgentClientError) -> ChangeFeed {
        var cursor = since
        var events: [ServerEvent] = []
        for _ in 0..<Self.maximumPages {
            var query = [URLQueryItem(name: "since", value: String(cursor))]
            if includeDeleted { query.append(URLQueryItem(name: "includeDeleted", value: "1")) }
            if let pageSize { query.append(URLQueryItem(name: "limit", value: String(pageSize))) }
            let page = try await send("GET", path, query: query, as: ChangePage.self)
            events += page.events
            guard page.hasMore ?? false else { return ChangeFeed(events: events, serverTime: page.serverTime) }
            guard page.serverTime > cursor else {
                throw .invalidResponse(message: "the feed says hasMore but its serverTime stays at \(page.serverTime)")
            }
            cursor = page.serverTime
        }
        throw .invalidResponse(message: "the feed did not end after \(Self.maximumPages) pages")
    }
}
