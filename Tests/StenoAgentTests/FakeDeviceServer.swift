import Foundation
import StenoAgent

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device agent protocol served in memory, through a `URLProtocol`, for the sync loop's
/// unit tests: a change sequence, one device's events, events of other providers and
/// devices, and rows asking the device to create an event. The end-to-end tests play the
/// same stories against a real stenod.
final class FakeDeviceServer: @unchecked Sendable {
    static let token = "stdv_fake"
    static let deviceID: Int64 = 3
    private let lock = NSLock()
    private var rows: [String: (row: ServerEvent, sequence: Int64)] = [:]
    private var sequence: Int64 = 1_000
    private var failures: [(path: String, status: Int, after: Int)] = []
    private(set) var upsertRequests = 0
    /// Feed pages answered at most this many rows.
    var pageLimit = 500
    /// Upsert bodies larger than this are refused with 413.
    var maxBodyBytes = 8 << 20

    let host: String
    var baseURL: URL { URL(string: "http://\(host)/") ?? URL(fileURLWithPath: "/") }

    init() {
        host = "fake-\(UUID().uuidString.lowercased()).invalid"
        FakeDeviceProtocol.register(self, host: host)
    }

    deinit { FakeDeviceProtocol.unregister(host: host) }

    /// A client whose requests this server answers.
    func client(token: String = FakeDeviceServer.token) -> StenoAgentClient {
        StenoAgentClient(baseURL: baseURL, token: token, session: session())
    }

    /// A session whose requests this server answers.
    func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [FakeDeviceProtocol.self]
        return URLSession(configuration: configuration)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: - The server's side of the story

    /// Stores a row as the server's own change (a rename, another provider's event, a request to create).
    func put(_ row: ServerEvent) {
        locked {
            sequence += 1
            var row = row
            row.updatedAt = sequence
            rows[row.id] = (row, sequence)
        }
    }

    /// Marks a row deleted.
    func delete(id: String) {
        locked {
            guard var row = rows[id]?.row else { return }
            sequence += 1
            row.deletedAt = sequence
            rows[id] = (row, sequence)
        }
    }

    /// A request to `path`, after `after` more that succeed, fails with `status`.
    func failNext(_ path: String, status: Int, after: Int = 0) {
        locked { failures.append((path, status, after)) }
    }

    /// Every row, by id.
    var allRows: [String: ServerEvent] { locked { rows.mapValues(\.row) } }

    /// This device's live events, by key description.
    var deviceEvents: [String: ServerEvent] {
        locked {
            var found: [String: ServerEvent] = [:]
            for (row, _) in rows.values where row.isEvent(ofDevice: Self.deviceID) && !row.isDeleted {
                if let key = row.key { found[key.description] = row }
            }
            return found
        }
    }

    // MARK: - Answering

    func answer(_ request: URLRequest, body: Data) -> (status: Int, headers: [String: String], body: Data) {
        locked {
            let path = request.url?.path ?? ""
            if let index = failures.firstIndex(where: { $0.path == path }) {
                if failures[index].after > 0 {
                    failures[index].after -= 1
                } else {
                    return (failures.remove(at: index).status, [:], Data(#"{"error": "scripted failure"}"#.utf8))
                }
            }
            if path == "/sync/devices/register" { return register(body) }
            guard request.value(forHTTPHeaderField: "Authorization") == "Device \(Self.token)" else {
                return (401, [:], Data(#"{"error": "missing, unknown or revoked device token"}"#.utf8))
            }
            switch (request.httpMethod ?? "GET", path) {
            case ("POST", "/sync/apple/events/upsert") where body.count > maxBodyBytes:
                return (413, [:], Data(#"{"error": "the body is over the limit"}"#.utf8))
            case ("POST", "/sync/apple/events/upsert"): return upsert(body)
            case ("GET", "/sync/events/changes"): return feed(request.url)
            default: return (404, [:], Data(#"{"error": "no such endpoint"}"#.utf8))
            }
        }
    }

    private func register(_ body: Data) -> (Int, [String: String], Data) {
        struct Request: Decodable { var pairingCode: String }
        guard let request = try? JSONDecoder().decode(Request.self, from: body),
            request.pairingCode.uppercased().filter({ $0 != "-" && $0 != " " }) == "K7QF2MXD"
        else { return (401, [:], Data(#"{"error": "unknown or expired pairing code"}"#.utf8)) }
        let answer = #"{"deviceToken": "\#(Self.token)", "device": {"id": \#(Self.deviceID), "label": "my-iphone", "timeZone": "Europe/Berlin", "account": 12}}"#
        return (201, [:], Data(answer.utf8))
    }

    private func upsert(_ body: Data) -> (Int, [String: String], Data) {
        struct Batch: Decodable { var events: [DeviceEvent] }
        guard let batch = try? JSONDecoder().decode(Batch.self, from: body) else { return (400, [:], Data(#"{"error": "bad JSON"}"#.utf8)) }
        upsertRequests += 1
        var results: [UpsertResult] = []
        for event in batch.events {
            results.append(UpsertResult(externalId: event.externalId, occurrenceDate: event.occurrenceDate, status: store(event)))
        }
        let answer = UpsertResponse(results: results, serverTime: sequence)
        return (200, [:], (try? JSONEncoder().encode(answer)) ?? Data())
    }

    private func store(_ event: DeviceEvent) -> UpsertStatus {
        let id = "e:\(event.key.description)"
        let existing = rows[id]?.row
        if event.isDeletion {
            let matching = rows.filter { _, value in
                value.row.isEvent(ofDevice: Self.deviceID) && value.row.externalId == event.externalId && !value.row.isDeleted
                    && (event.occurrenceDate == nil || value.row.occurrenceDate == event.occurrenceDate)
            }
            for (key, value) in matching {
                sequence += 1
                var row = value.row
                row.deletedAt = sequence
                rows[key] = (row, sequence)
            }
            return .ok
        }
        if let stored = existing?.externalUpdatedAt, let incoming = event.externalUpdatedAt, incoming < stored, existing?.isDeleted == false {
            return .stale
        }
        let interval = event.interval(defaultTimeZone: TimeZone(identifier: "Europe/Berlin") ?? .current)
        var row = ServerEvent(
            id: id, provider: "apple", device: Self.deviceID, externalId: event.externalId, occurrenceDate: event.occurrenceDate,
            externalCalendarId: event.externalCalendarId, calendarTitle: event.calendarTitle, title: event.title, allDay: event.isAllDay,
            date: event.date, startTime: event.startTime, endTime: event.endTime, endDate: event.endDate, timeZone: event.timeZone,
            start: interval.map { $0.start.formatted(.iso8601) }, end: interval.map { $0.end.formatted(.iso8601) },
            status: event.status, location: event.location, url: event.url, externalUpdatedAt: event.externalUpdatedAt, deletedAt: 0)
        if var unchanged = existing {
            unchanged.updatedAt = nil
            if unchanged == row { return .unchanged }
        }
        if let serverID = event.serverId, rows[serverID] != nil, rows[serverID]?.row.provider == nil {
            rows[serverID] = nil  // the request is fulfilled: the device's event stands for it now
        }
        sequence += 1
        row.updatedAt = sequence
        rows[id] = (row, sequence)
        return .ok
    }

    private func feed(_ url: URL?) -> (Int, [String: String], Data) {
        let query = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }?.queryItems ?? []
        let since = query.first { $0.name == "since" }.flatMap { $0.value }.flatMap { Int64($0) } ?? 0
        let includeDeleted = query.contains { $0.name == "includeDeleted" && $0.value == "1" }
        let changed = rows.values.filter { $0.sequence > since && (includeDeleted || !$0.row.isDeleted) }.sorted { $0.sequence < $1.sequence }
        let page = changed.prefix(pageLimit)
        let hasMore = changed.count > page.count
        let serverTime = hasMore ? (page.last?.sequence ?? since) : sequence
        struct Page: Encodable { var events: [ServerEvent]; var serverTime: Int64; var hasMore: Bool }
        let body = (try? JSONEncoder().encode(Page(events: page.map(\.row), serverTime: serverTime, hasMore: hasMore))) ?? Data()
        return (200, [:], body)
    }
}

/// Hands requests for a fake host to its ``FakeDeviceServer``.
final class FakeDeviceProtocol: URLProtocol {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var servers: [String: FakeDeviceServer] = [:]

    static func register(_ server: FakeDeviceServer, host: String) {
        lock.lock()
        defer { lock.unlock() }
        servers[host] = server
    }

    static func unregister(host: String) {
        lock.lock()
        defer { lock.unlock() }
        servers[host] = nil
    }

    static func server(for host: String?) -> FakeDeviceServer? {
        lock.lock()
        defer { lock.unlock() }
        return host.flatMap { servers[$0] }
    }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func stopLoading() {}

    override func startLoading() {
        guard let url = request.url, let server = Self.server(for: url.host) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotConnectToHost))
            return
        }
        let (status, headers, body) = server.answer(request, body: Self.body(of: request))
        let response = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers.merging(["Content-Type": "application/json"]) { a, _ in a })
        if let response { client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed) }
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }

    /// The request body, which URLSession may hand over as a stream.
    private static func body(of request: URLRequest) -> Data {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return Data() }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
