import Foundation

/// Reads multistatus bodies, tolerant of what servers do in practice: any namespace prefixes
/// (or a default namespace), relative, absolute or percent-encoded hrefs, propstats with mixed
/// statuses, `calendar-data` as text or CDATA, responses without an href (skipped) and status
/// lines without a reason phrase.
public enum MultistatusParser {
    /// Parses a multistatus body; hrefs are resolved against `base` (the URL that answered).
    public static func parse(_ data: Data, base: URL) throws(MultistatusError) -> Multistatus {
        let root: XMLElementNode
        do {
            root = try XMLElementTree.parse(data)
        } catch {
            throw .invalidXML(error)
        }
        guard root.name == .multistatus else { throw .notMultistatus(root: root.name.description) }
        guard let resolver = DAVHref.Resolver(base: base) else { throw .notMultistatus(root: "(no usable base URL \(base))") }
        var result = Multistatus(responses: [])
        result.syncToken = root.child(.syncToken).map(\.trimmedText).flatMap { $0.isEmpty ? nil : $0 }
        result.responses.reserveCapacity(root.children.count)
        for element in root.children where element.name == .response {
            // RFC 4918 allows several hrefs with one status (a shared 404): one response each.
            let hrefs = element.children(.href).compactMap { resolver.resolve($0.text) }
            guard !hrefs.isEmpty else { continue }
            let status = element.child(.status).flatMap { statusCode($0.trimmedText) }
            let propstats = element.children(.propstat).map { propstat in
                DAVPropstat(
                    status: propstat.child(.status).flatMap { statusCode($0.trimmedText) } ?? 200,
                    properties: propstat.child(.prop)?.children ?? [])
            }
            let errors = element.child(.error)?.children.map(\.name) ?? []
            for href in hrefs {
                result.responses.append(DAVResponse(href: href, status: status, propstats: propstats, errors: errors))
            }
        }
        return result
    }

    /// The code of a status line (`HTTP/1.1 404 Not Found`, `HTTP/1.1 200`); nil when absent.
    public static func statusCode(_ line: String) -> Int? {
        let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count >= 2, parts[0].uppercased().hasPrefix("HTTP/"), let code = Int(parts[1]), (100...999).contains(code) else {
            return nil
        }
        return code
    }

    /// The precondition names of a `<D:error>` body (for example `DAV: valid-sync-token`),
    /// empty when the body is not one.
    public static func errorConditions(_ data: Data) -> [XMLName] {
        guard !data.isEmpty, let root = try? XMLElementTree.parse(data), root.name == .error else { return [] }
        return root.children.map(\.name)
    }
}
