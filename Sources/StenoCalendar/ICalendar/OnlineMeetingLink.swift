import Foundation

/// Finds the online-meeting link of an event.
///
/// Precedence, first match wins:
/// 1. `X-MICROSOFT-SKYPETEAMSMEETINGURL` (Outlook/Teams),
/// 2. `X-GOOGLE-CONFERENCE` (Google Meet),
/// 3. `CONFERENCE` (RFC 7986) with an http(s) URI,
/// 4. any other `X-…ONLINE-MEETING…`/`X-…ONLINEMEETING…` property holding an http(s) URL,
/// 5. `URL`, when it points to a known meeting service (Teams, Zoom, Meet, Webex, …),
/// 6. the first known meeting-service link in `LOCATION`, then in `DESCRIPTION`,
/// 7. `URL`, whatever it points to.
enum OnlineMeetingLink {
    /// Hosts (or host suffixes) of meeting services recognised in free text.
    static let meetingHosts = [
        "teams.microsoft.com", "teams.live.com", "zoom.us", "zoomgov.com", "meet.google.com",
        "webex.com", "gotomeeting.com", "meet.goto.com", "whereby.com", "chime.aws", "bluejeans.com", "meet.jit.si",
    ]

    static func find(in component: ICalComponent, url: URL?, location: String?, description: String?) -> URL? {
        for name in ["X-MICROSOFT-SKYPETEAMSMEETINGURL", "X-GOOGLE-CONFERENCE"] {
            if let link = component.first(name).flatMap({ httpURL($0.text) }) { return link }
        }
        for conference in component.all("CONFERENCE") {
            if let link = httpURL(conference.value) { return link }
        }
        for property in component.properties where property.name.hasPrefix("X-") {
            let name = property.name.replacingOccurrences(of: "-", with: "")
            if name.contains("ONLINEMEETING"), let link = httpURL(property.text) { return link }
        }
        if let url, isMeetingLink(url) { return url }
        for text in [location, description].compactMap({ $0 }) {
            if let link = firstMeetingLink(in: text) { return link }
        }
        return url
    }

    /// Whether a URL points to a known meeting service.
    static func isMeetingLink(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return meetingHosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    /// The first http(s) link to a meeting service in free text.
    static func firstMeetingLink(in text: String) -> URL? {
        var search = text[...]
        while let range = search.range(of: "https://", options: .caseInsensitive) ?? search.range(of: "http://", options: .caseInsensitive) {
            let tail = search[range.lowerBound...]
            let end = tail.firstIndex { $0.isWhitespace || "<>\"'()[]{}|\\^`".contains($0) } ?? tail.endIndex
            var candidate = String(tail[..<end])
            while let last = candidate.last, ".,;:!?".contains(last) { candidate.removeLast() }
            if let url = URL(string: candidate), isMeetingLink(url) { return url }
            search = tail[end...]
        }
        return nil
    }

    /// The value as an http(s) URL, if it is one.
    private static func httpURL(_ value: String) -> URL? {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = trimmed.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return nil }
        return URL(string: trimmed)
    }
}
