import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client for a Steno server's device agent endpoints, holding the device's token.
///
/// Pair once with ``register(baseURL:pairingCode:label:timeZone:session:timeout:)``, keep the
/// token in the Keychain, and build a client from it for each sync. Every request carries
/// `Authorization: Device <token>`; failures are ``AgentClientError``s.
public struct StenoAgentClient: Sendable {
    /// The listener's address, e.g. `https://steno.example.com` (a path prefix behind a reverse proxy is kept).
    public let baseURL: URL
    /// The device token (`stdv_…`).
    public let token: String
    /// Seconds one request may take.
    public let timeout: TimeInterval
    let session: URLSession

    /// At most this many events go in one upsert request (the server takes up to 1,000).
    public static let upsertBatchSize = 500
    /// At most this many pages are read for one changes call: a bound against a server that
    /// keeps saying `hasMore` without moving on.
    public static let maximumPages = 100_000

    /// A client for a paired device.
    public init(baseURL: URL, token: String, session: URLSession = .shared, timeout: TimeInterval = 60) {
        self.baseURL = baseURL
        self.token = token
        self.session = session
        self.timeout = timeout
    }

    // MARK: - Transport

    /// Sends a request and decodes a 2xx answer's JSON as `Answer`.
    func send<Answer: Decodable>(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, authorized: Bool = true,
        as answer: Answer.Type
    ) async throws(AgentClientError) -> Answer {
        let data = try await Self.send(
            session: session, timeout: timeout, url: try url(path, query: query), method: method, body: body,
            token: authorized ? token : nil)
        return try Self.decode(answer, from: data)
    }

    /// `baseURL` with `path` appended and `query`.
    func url(_ path: String, query: [URLQueryItem] = []) throws(AgentClientError) -> URL {
        try Self.url(baseURL, path, query: query)
    }

    static func url(_ baseURL: URL, _ path: String, query: [URLQueryItem] = []) throws(AgentClientError) -> URL {
        let joined = baseURL.appendingPathComponent(path)
        guard var components = URLComponents(url: joined, resolvingAgainstBaseURL: false) else {
            throw .transport(message: "\(baseURL.absoluteString) is not a URL")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw .transport(message: "\(baseURL.absoluteString) is not a URL") }
        return url
    }

    /// One HTTP exchange: the body of a 2xx answer, else the matching error.
    static func send(
        session: URLSession, timeout: TimeInterval, url: URL, method: String, body: Data?, token: String?
    ) async throws(AgentClientError) -> Data {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Device \(token)", forHTTPHeaderField: "Authorization") }
        return try await exchange(request, session: session).data
    }

    /// Sends `request`: the body and headers of a 2xx answer, else the matching error.
    static func exchange(_ request: URLRequest, session: URLSession) async throws(AgentClientError) -> (data: Data, response: HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .transport(message: Self.describe(error))
        }
        guard let http = response as? HTTPURLResponse else {
            throw .invalidResponse(message: "not an HTTP answer from \(request.url?.absoluteString ?? "the server")")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw AgentClientError.from(status: http.statusCode, body: data, retryAfter: http.value(forHTTPHeaderField: "Retry-After"))
        }
        return (data, http)
    }

    static func encode<Value: Encodable>(_ value: Value) throws(AgentClientError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .badRequest(message: "cannot encode the request: \(error)")
        }
    }

    static func decode<Answer: Decodable>(_ type: Answer.Type, from data: Data) throws(AgentClientError) -> Answer {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            let start = String(decoding: data.prefix(120), as: UTF8.self)
            throw .invalidResponse(message: "cannot read \(type): \(error) in \(start)")
        }
    }

    /// A URLSession error in a sentence (the token never appears in it: it is only in a header).
    static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        }
        return String(describing: error)
    }
}

extension StenoAgentClient: CustomStringConvertible, CustomReflectable {
    /// The server's address; the token is left out so that logging a client never leaks it.
    public var description: String { "StenoAgentClient(\(baseURL.absoluteString), token: <redacted>)" }

    /// What `dump` and debuggers show: the token redacted.
    public var customMirror: Mirror {
        Mirror(self, children: ["baseURL": baseURL, "token": "<redacted>", "timeout": timeout])
    }
}
