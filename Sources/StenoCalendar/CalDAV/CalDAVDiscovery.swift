import Foundation

/// Finds an account's calendars (RFC 6764, RFC 5397, RFC 4791 §6.2.1): `/.well-known/caldav`
/// (redirects followed), `current-user-principal`, `calendar-home-set`, then the collections
/// of the home; and probes what the server supports.
struct CalDAVDiscovery {
    let client: CalDAVClient

    /// Finds the principal and calendar home starting from the configured URL (a server root,
    /// a principal, a home, or a well-known URL).
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` naming the URLs tried when none leads to a home.
    func discover(from start: URL) async throws -> CalDAVAccountState {
        var candidates: [URL] = []
        let wellKnown = URL(string: "/.well-known/caldav", relativeTo: start)?.absoluteURL
        let isRoot = start.path.isEmpty || start.path == "/"
        if isRoot, let wellKnown { candidates.append(wellKnown) }
        candidates.append(start)
        if !isRoot, let wellKnown { candidates.append(wellKnown) }
        var failures: [String] = []
        for candidate in candidates {
            if let found = try await home(startingAt: candidate, failures: &failures) { return found }
        }
        throw CalendarSyncError.badSource(
            "no CalDAV calendar home found from \(start.absoluteString) (\(failures.joined(separator: "; "))); "
                + "check the account URL: a server, principal or calendar-home URL")
    }

    /// Follows one candidate URL to a calendar home; nil (with the reason in `failures`) when it leads nowhere.
    private func home(startingAt url: URL, failures: inout [String]) async throws -> CalDAVAccountState? {
        guard let first = try await principalProperties(at: url, failures: &failures) else { return nil }
        if let home = first.homes.first {
            return CalDAVAccountState(principalURL: first.principal?.url.absoluteString ?? first.responder.url.absoluteString,
                                      homeURL: home.asCollection.url.absoluteString)
        }
        if let principal = first.principal {
            if let second = try await principalProperties(at: principal.url, failures: &failures), let home = second.homes.first {
                return CalDAVAccountState(principalURL: principal.url.absoluteString, homeURL: home.asCollection.url.absoluteString)
            }
            failures.append("\(principal.url.absoluteString) has no calendar-home-set")
            return nil
        }
        if first.isCalendar {
            // The URL is a calendar itself: list it from its parent.
            let parent = first.responder.url.deletingLastPathComponent()
            return CalDAVAccountState(principalURL: nil, homeURL: parent.absoluteString)
        }
        failures.append("\(url.absoluteString) names no principal")
        return nil
    }

    private struct PrincipalProperties {
        var responder: DAVHref
        var principal: DAVHref?
        var homes: [DAVHref]
        var isCalendar: Bool
    }

    /// PROPFIND Depth 0 for the principal and home; nil when the URL does not answer with a multistatus.
    private func principalProperties(at url: URL, failures: inout [String]) async throws -> PrincipalProperties? {
        let response = try await client.send("PROPFIND", url, depth: "0", body: CalDAVRequests.principalAndHome)
        guard response.status == 207 else {
            failures.append("PROPFIND \(url.absoluteString) → HTTP \(response.status)")
            return nil
        }
        let multistatus = try CalDAVClient.multistatus(of: response, method: "PROPFIND", url: url)
        // Depth 0: the one response (servers echo the href they were asked, maybe after a redirect).
        guard let entry = multistatus.responses.first else {
            failures.append("PROPFIND \(url.absoluteString) → an empty multistatus")
            return nil
        }
        return PrincipalProperties(
            responder: entry.href,
            principal: entry.hrefs(in: .currentUserPrincipal, relativeTo: response.url).first,
            homes: entry.hrefs(in: .calendarHomeSet, relativeTo: response.url),
            isCalendar: entry.property(.resourceType)?.child(.calendar) != nil)
    }

    /// The calendar collections of a home (Depth 1), with their CTags when `changeTag` and
    /// the reports each supports when `probeReports`.
    ///
    /// - Throws: ``CalDAVHomeGone`` on 404/410 (the stored home moved: discover again).
    func calendars(home: URL, probeReports: Bool, changeTag: Bool) async throws -> [CalDAVCollection] {
        let body = CalDAVRequests.calendarListing(probeReports: probeReports, changeTag: changeTag)
        let response = try await client.send("PROPFIND", home, depth: "1", body: body)
        if response.status == 404 || response.status == 410 || response.status == 301 { throw CalDAVHomeGone() }
        let multistatus = try CalDAVClient.multistatus(of: response, method: "PROPFIND", url: home)
        let homePath = DAVHref(home.absoluteString, relativeTo: home)?.asCollection.path
        var seen = Set<String>()
        return multistatus.responses.compactMap { entry -> CalDAVCollection? in
            guard let collection = CalDAVCollection(entry), collection.href.path != homePath || homePath == nil,
                seen.insert(collection.href.path).inserted
            else { return nil }
            return collection
        }
    }

    /// Probes the server once: the DAV header of OPTIONS on the home, and the reports the
    /// calendars announced (servers that announce none are assumed to support sync-collection
    /// and multiget; a refusal is handled when it happens).
    func capabilities(home: URL, calendars: [CalDAVCollection]) async throws -> CalDAVCapabilities {
        let response = try await client.send("OPTIONS", home)
        let classes = (response.header("DAV") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let announced = calendars.compactMap(\.reports)
        let reports = announced.reduce(into: Set<String>()) { $0.formUnion($1) }
        let known = !announced.isEmpty
        return CalDAVCapabilities(
            syncCollection: known ? reports.contains("sync-collection") : true,
            calendarMultiget: known ? reports.contains("calendar-multiget") : true,
            calendarQuery: known ? reports.contains("calendar-query") : true,
            scheduling: classes.contains("calendar-auto-schedule"),
            davClasses: classes)
    }
}

/// The stored calendar home no longer answers: discovery runs again.
struct CalDAVHomeGone: Error {}
