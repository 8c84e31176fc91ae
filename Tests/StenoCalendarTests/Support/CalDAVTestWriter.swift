import Foundation

@testable import StenoCalendar

/// Writes to a CalDAV server the way a calendar app would, for tests: MKCALENDAR, PUT and
/// DELETE of events, with HTTP Basic.
struct CalDAVTestWriter {
    let transport: HTTPTransport
    let user: String
    let password: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private func send(_ method: String, _ url: URL, body: String? = nil, contentType: String? = nil) async throws -> HTTPResponseValue {
        var headers = [("Authorization", HTTPAuthorization.basic(user: user, password: password))]
        if let contentType { headers.append(("Content-Type", contentType)) }
        let response = try await transport.send(
            HTTPRequestValue(method: method, url: url, headers: headers, body: body.map { Data($0.utf8) }))
        guard response.isSuccess else {
            throw Failure(description: "\(method) \(url.absoluteString) → HTTP \(response.status): \(response.text.prefix(300))")
        }
        return response
    }

    /// Creates a calendar collection that holds events (and optionally only tasks).
    func makeCalendar(_ url: URL, displayName: String, color: String? = nil, components: [String] = ["VEVENT"]) async throws {
        let colorElement = color.map { "<A:calendar-color>\($0)</A:calendar-color>" } ?? ""
        let comps = components.map { "<C:comp name=\"\($0)\"/>" }.joined()
        let body = """
            <?xml version="1.0" encoding="utf-8"?>
            <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:A="http://apple.com/ns/ical/">
              <D:set><D:prop><D:displayname>\(displayName)</D:displayname>\(colorElement)
                <C:supported-calendar-component-set>\(comps)</C:supported-calendar-component-set></D:prop></D:set>
            </C:mkcalendar>
            """
        _ = try await send("MKCALENDAR", url, body: body, contentType: "application/xml; charset=utf-8")
    }

    /// Creates or replaces an object; returns its ETag.
    @discardableResult
    func put(_ url: URL, ics: String) async throws -> String? {
        try await send("PUT", url, body: ics, contentType: "text/calendar; charset=utf-8").header("ETag")
    }

    /// Deletes an object or collection.
    func delete(_ url: URL) async throws {
        _ = try await send("DELETE", url)
    }
}

/// iCalendar text for tests.
enum TestEvents {
    /// A single event in UTC.
    static func single(uid: String, summary: String, start: String, end: String, extra: [String] = []) -> String {
        calendar([
            "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z", "DTSTART:\(start)", "DTEND:\(end)", "SUMMARY:\(summary)",
        ] + extra + ["END:VEVENT"])
    }

    /// A VCALENDAR around component lines (CRLF line ends).
    static func calendar(_ lines: [String]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Steno//Tests//EN"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    /// `YYYYMMDDTHHMMSSZ` for an instant.
    static func utc(_ date: Date) -> String { CalDAVEventDocument.utc(date) }
}
