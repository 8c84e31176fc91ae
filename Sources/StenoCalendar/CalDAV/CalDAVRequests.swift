import Foundation

/// The XML bodies of Steno's WebDAV/CalDAV requests. Every body declares the same prefixes;
/// servers must not care, and the parser does not either.
enum CalDAVRequests {
    static let header = """
        <?xml version="1.0" encoding="utf-8"?>

        """
    static let namespaces =
        #"xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:A="http://apple.com/ns/ical/""#

    /// PROPFIND for `current-user-principal` and `calendar-home-set` (either may answer).
    static let principalAndHome = propfind(["D:current-user-principal", "C:calendar-home-set", "D:resourcetype"])

    /// PROPFIND Depth 1 on the calendar home: each collection's name, color, components, time
    /// zone; its CTag when `changeTag` (accounts without sync-collection, where the CTag is the
    /// change check); the reports it supports when `probeReports`.
    ///
    /// The CTag is not asked for otherwise: with sync-collection the report itself is the
    /// change check, and some servers compute a CTag from every member on each request
    /// (Radicale: 0.6 s for 10,000 events; `DAV:sync-token` as a property costs it 0.9 s).
    static func calendarListing(probeReports: Bool, changeTag: Bool) -> Data {
        var properties = [
            "D:resourcetype", "D:displayname", "A:calendar-color", "C:supported-calendar-component-set", "C:calendar-timezone",
        ]
        if changeTag { properties.append("CS:getctag") }
        if probeReports { properties.append("D:supported-report-set") }
        return propfind(properties)
    }

    /// PROPFIND Depth 1 on a calendar: every member's ETag (the fallback without sync-collection).
    static let memberETags = propfind(["D:getetag", "D:resourcetype"])

    /// A PROPFIND body asking for `properties` (prefixed names from ``namespaces``).
    static func propfind(_ properties: [String]) -> Data {
        let props = properties.map { "<\($0)/>" }.joined()
        return Data((header + "<D:propfind \(namespaces)><D:prop>\(props)</D:prop></D:propfind>").utf8)
    }

    /// REPORT sync-collection (RFC 6578) from `token` ("" for the initial listing), asking for
    /// ETags only; `limit` adds `<D:limit><D:nresults>`.
    static func syncCollection(token: String, limit: Int?) -> Data {
        let limitElement = limit.map { "<D:limit><D:nresults>\($0)</D:nresults></D:limit>" } ?? ""
        return Data(
            (header + "<D:sync-collection \(namespaces)><D:sync-token>\(escape(token))</D:sync-token>"
                + "<D:sync-level>1</D:sync-level>\(limitElement)<D:prop><D:getetag/></D:prop></D:sync-collection>").utf8)
    }

    /// PROPFIND Depth 0 on a calendar: its current `DAV:sync-token`, the start of later
    /// sync-collection reports when the first listing was a time-range query.
    static let syncTokenProperty = propfind(["D:sync-token"])

    /// REPORT calendar-query (RFC 4791 §7.8) for the ETags of the event objects with an
    /// occurrence overlapping `range` (times in UTC).
    static func calendarQuery(_ range: DateInterval) -> Data {
        timeRangeQuery(range, properties: "<D:getetag/>")
    }

    /// REPORT calendar-query for the event objects with an occurrence overlapping `range`,
    /// with their data: recurring ones expanded by the server to their instances in `range`
    /// when `expand` (RFC 4791 §9.6.5), whole otherwise. One request per range, no multiget.
    static func calendarQueryWithData(_ range: DateInterval, expand: Bool) -> Data {
        let data = expand
            ? "<C:calendar-data><C:expand start=\"\(CalDAVEventDocument.utc(range.start))\" end=\"\(CalDAVEventDocument.utc(range.end))\"/></C:calendar-data>"
            : "<C:calendar-data/>"
        return timeRangeQuery(range, properties: "<D:getetag/>" + data)
    }

    /// A calendar-query of the VEVENTs overlapping `range`, asking for `properties`.
    private static func timeRangeQuery(_ range: DateInterval, properties: String) -> Data {
        let start = CalDAVEventDocument.utc(range.start)
        let end = CalDAVEventDocument.utc(range.end)
        return Data(
            (header + "<C:calendar-query \(namespaces)><D:prop>\(properties)</D:prop><C:filter><C:comp-filter name=\"VCALENDAR\">"
                + "<C:comp-filter name=\"VEVENT\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:comp-filter>"
                + "</C:comp-filter></C:filter></C:calendar-query>").utf8)
    }

    /// REPORT calendar-multiget (RFC 4791 §7.9) for `hrefs` (canonical paths).
    static func calendarMultiget(_ hrefs: [DAVHref]) -> Data {
        var body = header + "<C:calendar-multiget \(namespaces)><D:prop><D:getetag/><C:calendar-data/></D:prop>"
        body.reserveCapacity(body.utf8.count + hrefs.count * 80)
        for href in hrefs { body += "<D:href>\(escape(href.path))</D:href>" }
        body += "</C:calendar-multiget>"
        return Data(body.utf8)
    }

    /// XML-escapes text content.
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
