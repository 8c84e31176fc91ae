import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import StenoCore

/// The HTTP client every calendar provider talks through: pooled connections, TLS, redirects,
/// a response size limit, and counters of requests and bytes for sync reports and benchmarks.
///
/// One transport is shared by the daemon; it must be shut down once (``shutdown()``).
public final class HTTPTransport: Sendable {
    /// The largest response body read; a larger one is an error rather than an allocation
    /// sized by the server.
    public let maximumResponseBytes: Int
    /// How long one request may take, connect to last byte.
    public let requestTimeout: Duration
    let client: HTTPClient
    /// The same, following no redirects: under a destination policy every hop is checked here.
    let checkedClient: HTTPClient
    let counters = NIOLockedValueBox(Counters())

    /// Requests sent and bytes received since the transport was made.
    public struct Counters: Sendable, Hashable {
        public var requests = 0
        public var bytesReceived = 0
    }

    /// A transport with its own connection pool.
    public init(maximumResponseBytes: Int = 256 << 20, requestTimeout: Duration = .seconds(120)) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        // A response may be slow to start (a server preparing a large report): reading may
        // take as long as the whole request is allowed to.
        configuration.timeout = .init(connect: .seconds(15), read: .nanoseconds(max(1, requestTimeout.nanoseconds)))
        configuration.decompression = .enabled(limit: .ratio(50))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        configuration.redirectConfiguration = .disallow
        checkedClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.maximumResponseBytes = maximumResponseBytes
        self.requestTimeout = requestTimeout
    }

    /// Closes the connection pool.
    public func shutdown() async throws {
        try await client.shutdown()
        try await checkedClient.shutdown()
    }

    /// Where requests of the current task may go; nil: anywhere (accounts of admins, the
    /// daemon's own requests). Set with `HTTPTransport.$destinationPolicy.withValue(…)` around
    /// the work done for a member's account.
    @TaskLocal public static var destinationPolicy: HTTPDestinationPolicy?

    /// Redirects followed at most.
    static let maximumRedirects = 5

    /// The counters so far.
    public var totals: Counters { counters.withLockedValue { $0 } }

    /// Sends a request and reads the whole response.
    ///
    /// - Throws: ``HTTPTransportError`` when the server cannot be reached, the URL is not
    ///   http(s), or the body exceeds ``maximumResponseBytes``. HTTP error statuses are
    ///   returned, not thrown: callers give them meaning.
    public func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
        guard let policy = Self.destinationPolicy else { return try await send(request, through: client) }
        var current = request
        for _ in 0...Self.maximumRedirects {
            try await Self.check(current.url, against: policy)
            let response = try await send(current, through: checkedClient)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location") else { return response }
            guard let next = URL(string: location, relativeTo: current.url)?.absoluteURL else {
                throw HTTPTransportError.unreachable(url: current.url.absoluteString, reason: "it redirects to an invalid URL")
            }
            if next.host?.lowercased() != current.url.host?.lowercased() || next.port != current.url.port {
                // Credentials are for the server they were given for.
                current.headers.removeAll { $0.0.caseInsensitiveCompare("Authorization") == .orderedSame }
            }
            if response.status == 303 || (response.status != 307 && response.status != 308 && current.method == "POST") {
                current.method = "GET"
                current.body = nil
            }
            current.url = next
        }
        throw HTTPTransportError.unreachable(url: request.url.absoluteString, reason: "more than \(Self.maximumRedirects) redirects")
    }

    /// Checks a URL against a policy off the cooperative threads: name resolution blocks.
    static func check(_ url: URL, against policy: HTTPDestinationPolicy) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do {
                    try policy.check(url)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    func send(_ request: HTTPRequestValue, through client: HTTPClient) async throws -> HTTPResponseValue {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw HTTPTransportError.unsupportedURL(request.url.absoluteString)
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        outgoing.headers = HTTPHeaders(request.headers)
        if !outgoing.headers.contains(name: "User-Agent") { outgoing.headers.add(name: "User-Agent", value: "stenod") }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
            outgoing.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        }
        counters.withLockedValue { $0.requests += 1 }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: .seconds(requestTimeout.components.seconds))
        } catch {
            throw HTTPTransportError.unreachable(url: request.url.absoluteString, reason: Self.unreachableReason(error, url: request.url))
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: maximumResponseBytes)
        } catch is NIOTooManyBytesError {
            throw HTTPTransportError.responseTooLarge(url: request.url.absoluteString, limit: maximumResponseBytes)
        } catch {
            throw HTTPTransportError.unreachable(url: request.url.absoluteString, reason: Self.unreachableReason(error, url: request.url))
        }
        counters.withLockedValue { $0.bytesReceived += body.readableBytes }
        // The body is wrapped, not copied (a Graph page is ~125 kB; NIO copies up to 256 kB by
        // default). Responses live briefly, so the buffer's spare capacity does not matter.
        return HTTPResponseValue(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(buffer: body, byteTransferStrategy: .noCopy), url: response.url ?? request.url)
    }
}

/// A request: method, URL, headers and an optional body.
public struct HTTPRequestValue: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(String, String)]
    public var body: Data?

    public init(method: String, url: URL, headers: [(String, String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

extension HTTPRequestValue: SecretRedacting {
    /// Authorization headers and bodies (an OAuth form carries secrets and tokens) stay out
    /// of descriptions.
    public var customMirror: Mirror {
        let headers = headers.map { name, value in
            (name, name.lowercased() == "authorization" ? RedactedSecret(value).description : value)
        }
        return Mirror(
            self, children: ["method": method, "url": url, "headers": headers, "body": RedactedSecret(body)], displayStyle: .struct)
    }
}

/// A response read in full.
public struct HTTPResponseValue: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data
    /// The URL that answered, after redirects.
    public var url: URL

    public init(status: Int, headers: [(String, String)], body: Data, url: URL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The first value of a header (names compare case-insensitively).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body as UTF-8 text (invalid sequences repaired).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The `Retry-After` delay (delta-seconds or an HTTP date), if the server sent one.
    public func retryAfter(now: Date = Date()) -> Duration? {
        header("Retry-After").flatMap { RetryAfter.parse($0, now: now) }
    }
}

/// Transport failures (as opposed to HTTP error statuses).
public enum HTTPTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    case unsupportedURL(String)
    case unreachable(url: String, reason: String)
    case responseTooLarge(url: String, limit: Int)
    /// The destination policy of the request's account refuses the address.
    case forbiddenDestination(url: String, reason: String)

    public var description: String {
        switch self {
        case .unsupportedURL(let url): return "\(CredentialRedaction.redactedURL(url)) is not an http(s) URL"
        case .unreachable(let url, let reason):
            return "could not reach \(CredentialRedaction.redactedURL(url)): \(CredentialRedaction.redacted(reason))"
        case .forbiddenDestination(let url, let reason): return "\(CredentialRedaction.redactedURL(url)) may not be requested: \(reason)"
        case .responseTooLarge(let url, let limit): return "the response from \(CredentialRedaction.redactedURL(url)) is larger than \(limit >> 20) MiB"
        }
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at `Int64.max`.
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
