import Foundation

/// A WebDAV href resolved against the URL that answered and normalized, so one resource has
/// one key however a server spells it: relative (`event.ics`), absolute-path
/// (`/cal/event.ics`) or absolute (`https://host/cal/event.ics`), with or without
/// percent-encoding (`%40` or `@`, `%3a` or `%3A`), with dot segments or doubled slashes.
public struct DAVHref: Sendable, Hashable, CustomStringConvertible {
    /// The canonical percent-encoded path: the resource key stored in the mirror.
    public let path: String
    /// `scheme://host[:port]` of the server that holds the resource.
    public let origin: String

    /// The absolute URL to send requests to.
    public var url: URL { URL(string: origin + path) ?? URL(fileURLWithPath: path) }

    /// Resolves `text` (an href as received) against `base`.
    ///
    /// - Returns: nil when the text cannot be read as a URL reference at all.
    public init?(_ text: String, relativeTo base: URL) {
        guard let resolver = DAVHref.Resolver(base: base) else { return nil }
        guard let href = resolver.resolve(text) else { return nil }
        self = href
    }

    init(path: String, origin: String) {
        self.path = path
        self.origin = origin
    }

    /// Resolves many hrefs against one base (a multistatus body): the base is read once, and
    /// hrefs already in canonical form (the common case) skip URL parsing.
    struct Resolver {
        let base: URL
        let origin: String
        /// The base path up to and including its last slash, canonical.
        let directory: String

        init?(base: URL) {
            guard let components = URLComponents(url: base.absoluteURL, resolvingAgainstBaseURL: false),
                let origin = Self.origin(of: components)
            else { return nil }
            self.base = base.absoluteURL
            self.origin = origin
            let basePath = DAVHref.canonicalPath(components.percentEncodedPath)
            directory = basePath.hasSuffix("/") ? basePath : String(basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)])
        }

        func resolve(_ text: String) -> DAVHref? {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { return nil }
            if DAVHref.isCanonicalAbsolutePath(trimmed) { return DAVHref(path: trimmed, origin: origin) }
            if DAVHref.isCanonicalName(trimmed) { return DAVHref(path: directory + trimmed, origin: origin) }
            // Servers occasionally send raw spaces or non-ASCII: escape what a URL cannot hold,
            // keeping existing escapes and delimiters.
            var allowed = CharacterSet.urlQueryAllowed
            allowed.insert(charactersIn: "%#/?:@")
            guard let escaped = trimmed.addingPercentEncoding(withAllowedCharacters: allowed),
                let resolved = URL(string: escaped, relativeTo: base)?.absoluteURL,
                let components = URLComponents(url: resolved, resolvingAgainstBaseURL: false),
                let origin = Self.origin(of: components)
            else { return nil }
            return DAVHref(path: DAVHref.canonicalPath(components.percentEncodedPath), origin: origin)
        }

        /// `scheme://host[:port]`, the scheme and host lowercased and a default port dropped.
        static func origin(of components: URLComponents) -> String? {
            guard let scheme = components.scheme?.lowercased(), let host = components.percentEncodedHost?.lowercased(), !host.isEmpty
            else { return nil }
            let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
            if let port = components.port, port != defaultPort { return "\(scheme)://\(host):\(port)" }
            return "\(scheme)://\(host)"
        }
    }

    /// Bytes left unescaped in a canonical path segment (RFC 3986 `pchar` minus the few that
    /// servers treat inconsistently).
    static let segmentBytes: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,;=:@".utf8) {
            table[Int(byte)] = true
        }
        return table
    }()

    static let segmentCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,;=:@")

    /// Whether `text` is already a canonical absolute path: `/`-separated segments of
    /// unescaped safe bytes, no empty, `.` or `..` segment except a trailing slash.
    static func isCanonicalAbsolutePath(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "/") else { return false }
        return isCanonicalSegments(text.utf8.dropFirst())
    }

    /// Whether `text` is a single canonical segment (a relative file name such as `a.ics`).
    static func isCanonicalName(_ text: String) -> Bool {
        !text.utf8.contains(UInt8(ascii: "/")) && isCanonicalSegments(text.utf8[...])
    }

    private static func isCanonicalSegments(_ bytes: Substring.UTF8View) -> Bool {
        var segmentLength = 0
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if segmentLength == 0 || dots == segmentLength && dots <= 2 { return false }
                segmentLength = 0
                dots = 0
                continue
            }
            guard segmentBytes[Int(byte)] else { return false }
            segmentLength += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        // The last segment may be empty (a trailing slash) but not "." or "..".
        return !(segmentLength > 0 && dots == segmentLength && dots <= 2)
    }

    /// A path with dot segments removed and every segment decoded then re-encoded with one
    /// rule. An escaped slash (`%2F`) stays escaped: it is part of a name, not a separator.
    static func canonicalPath(_ encodedPath: String) -> String {
        var output: [String] = []
        let segments = encodedPath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case "":
                if isLast { output.append("") }
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                let decoded = segment.removingPercentEncoding ?? segment
                output.append(decoded.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// Whether this href names a collection (ends with a slash).
    public var isCollection: Bool { path.hasSuffix("/") }

    /// The same path with a trailing slash: collections are compared in this form.
    public var asCollection: DAVHref { isCollection ? self : DAVHref(path: path + "/", origin: origin) }

    /// The last path segment, decoded (a readable name for a collection without displayname).
    public var lastSegment: String {
        let segment = path.split(separator: "/").last.map(String.init) ?? path
        return segment.removingPercentEncoding ?? segment
    }

    public var description: String { origin + path }
}
