import Foundation

/// A WebDAV `207 Multi-Status` body (RFC 4918 §14.16), read into values: one
/// ``DAVResponse`` per `<D:response>`, plus the `<D:sync-token>` of a sync-collection report.
public struct Multistatus: Sendable {
    public var responses: [DAVResponse]
    /// The new sync token (RFC 6578), when the report returned one.
    public var syncToken: String?

    public init(responses: [DAVResponse], syncToken: String? = nil) {
        self.responses = responses
        self.syncToken = syncToken
    }
}

/// One `<D:response>`: a resource with either a status of its own (for example 404 in a
/// sync-collection report, 507 for a truncated result) or its properties grouped by status.
public struct DAVResponse: Sendable {
    public var href: DAVHref
    /// The response-level status, when the server sent one instead of (or beside) propstats.
    public var status: Int?
    public var propstats: [DAVPropstat]
    /// Names of the preconditions in a `<D:error>` element, if any.
    public var errors: [XMLName]

    public init(href: DAVHref, status: Int? = nil, propstats: [DAVPropstat] = [], errors: [XMLName] = []) {
        self.href = href
        self.status = status
        self.propstats = propstats
        self.errors = errors
    }

    /// A property found with a 2xx status (properties in 404 propstats are absent, not empty).
    public func property(_ name: XMLName) -> XMLElementNode? {
        for propstat in propstats where (200..<300).contains(propstat.status) {
            if let value = propstat.properties.first(where: { $0.name == name }) { return value }
        }
        return nil
    }

    /// A found property's trimmed text, nil when absent or empty.
    public func text(_ name: XMLName) -> String? {
        guard let text = property(name)?.trimmedText, !text.isEmpty else { return nil }
        return text
    }

    /// The hrefs inside a found property (`current-user-principal`, `calendar-home-set`),
    /// resolved against `base`.
    public func hrefs(in name: XMLName, relativeTo base: URL) -> [DAVHref] {
        property(name)?.children(.href).compactMap { DAVHref($0.trimmedText, relativeTo: base) } ?? []
    }

    /// The status that applies to the resource as a whole: its own, or 200 when it has any
    /// successful propstat.
    public var effectiveStatus: Int {
        if let status { return status }
        return propstats.contains { (200..<300).contains($0.status) } ? 200 : (propstats.first?.status ?? 200)
    }
}

/// One `<D:propstat>`: properties and the status they share.
public struct DAVPropstat: Sendable {
    public var status: Int
    public var properties: [XMLElementNode]

    public init(status: Int, properties: [XMLElementNode]) {
        self.status = status
        self.properties = properties
    }
}

/// Why a multistatus body could not be read.
public enum MultistatusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not well-formed XML (truncated, garbage).
    case invalidXML(XMLReadError)
    /// Well-formed, but its root is not `DAV: multistatus`.
    case notMultistatus(root: String)

    public var description: String {
        switch self {
        case .invalidXML(let error): return "the multistatus response is not readable: \(error)"
        case .notMultistatus(let root): return "expected a DAV:multistatus response, got <\(root)>"
        }
    }
}
