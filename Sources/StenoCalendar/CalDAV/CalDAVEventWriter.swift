import Foundation
import StenoCore

/// Writes events to a CalDAV calendar with preconditions, so a write never overwrites a
/// change Steno has not seen:
///
/// - create: `PUT` of a new object with `If-None-Match: *` (412 → the href is taken);
/// - rename: `GET` the object, change its SUMMARY, `PUT` with `If-Match` and the ETag the
///   GET returned; on 412 (changed in between) read it again and retry once. A weak
///   `W/"…"` ETag, or none, is never sent: the write is refused as unsafe instead.
public struct CalDAVEventWriter: CalendarEventWriter {
    let transport: HTTPTransport
    let now: @Sendable () -> Date

    /// A writer sending its requests through `transport`; `now` stamps DTSTAMP/LAST-MODIFIED.
    public init(transport: HTTPTransport, now: @escaping @Sendable () -> Date = { Date() }) {
        self.transport = transport
        self.now = now
    }

    public func create(_ event: NewCalendarEvent, calendarRemoteID: String, context: CalendarAccountContext) async throws
        -> CalendarEventRef
    {
        let client = try makeClient(context)
        let uid = event.uid ?? UUID().uuidString.lowercased() + "@steno"
        let collection = try url(of: calendarRemoteID, context: context)
        let object = collection.appendingPathComponent(Self.fileName(for: uid))
        let body = CalDAVEventDocument.new(event, uid: uid, now: now())
        let response = try await client.send(
            "PUT", object, body: Data(body.utf8), contentType: "text/calendar; charset=utf-8", extraHeaders: [("If-None-Match", "*")])
        switch response.status {
        case 200..<300:
            let resource = DAVHref(object.absoluteString, relativeTo: object)?.path ?? object.path
            return CalendarEventRef(
                calendarRemoteID: calendarRemoteID, resource: resource, uid: uid, etag: response.header("ETag"),
                occurrence: Self.occurrence(of: body, resource: resource, around: event))
        case 412:
            throw CalendarWriteError.conflict(
                "an event already exists at \(object.absoluteString) (HTTP 412 to PUT with If-None-Match: *); nothing was overwritten")
        default:
            throw HTTPStatusMeaning.error(for: response, doing: "PUT \(object.absoluteString)")
        }
    }

    public func rename(_ event: CalendarEventRef, title: String, context: CalendarAccountContext) async throws -> CalendarEventRef {
        let client = try makeClient(context)
        let object = try url(of: event.resource, context: context)
        return try await ConditionalWrite.retryingOnce(target: object.absoluteString, request: "PUT with If-Match", logger: context.logger) {
            _ in
            let current = try await client.send("GET", object)
            switch current.status {
            case 200: break
            case 404, 410:
                throw CalendarWriteError.notFound("\(object.absoluteString) is gone at the source (HTTP \(current.status)); sync the account")
            default: throw HTTPStatusMeaning.error(for: current, doing: "GET \(object.absoluteString)")
            }
            guard let etag = current.header("ETag"), !etag.hasPrefix("W/"), !etag.isEmpty else {
                throw CalendarWriteError.unsafe(
                    "\(object.absoluteString) has no strong ETag (got \(current.header("ETag") ?? "none")), so a rename could "
                        + "overwrite someone else's change; not renamed")
            }
            let body = try CalDAVEventDocument.renamed(current.text, title: title, now: now())
            let response = try await client.send(
                "PUT", object, body: Data(body.utf8), contentType: "text/calendar; charset=utf-8", extraHeaders: [("If-Match", etag)])
            switch response.status {
            case 200..<300:
                var renamed = event
                renamed.etag = response.header("ETag")
                return .written(renamed)
            case 412:
                return .changedMeanwhile
            default:
                throw HTTPStatusMeaning.error(for: response, doing: "PUT \(object.absoluteString)")
            }
        }
    }

    /// The occurrence a written object holds, as a sync would mirror it.
    static func occurrence(of body: String, resource: String, around event: NewCalendarEvent) -> EventOccurrence? {
        let window = DateInterval(start: event.start.addingTimeInterval(-86_400), end: max(event.end, event.start).addingTimeInterval(86_400))
        let calendar = try? ICalendar.parse(body)
        return calendar?.occurrences(in: window, defaultTimeZone: TimeZone(identifier: "UTC") ?? .current).first?.mirrored(resource: resource)
    }

    private func makeClient(_ context: CalendarAccountContext) throws -> CalDAVClient {
        CalDAVClient(account: context.account, credentials: context.credentials, transport: transport, save: context.saveCredentials)
    }

    /// The absolute URL of a href path of the account: on the calendar home's server (iCloud
    /// serves calendars from another host than the one configured), else the account URL's.
    private func url(of path: String, context: CalendarAccountContext) throws -> URL {
        let home = CalDAVStateCoding.decode(CalDAVAccountState.self, from: context.account.syncState).flatMap { URL(string: $0.homeURL) }
        guard let base = home ?? context.account.settings["url"].flatMap(URL.init(string:)), base.host != nil,
            let href = DAVHref(path, relativeTo: base)
        else {
            throw CalendarSyncError.badSource("the CalDAV account has no usable `url` setting to write \(path) to")
        }
        return href.url
    }

    /// The object's file name: the UID when it is plain, else a digest-free stand-in that
    /// never needs escaping.
    static func fileName(for uid: String) -> String {
        let plain = uid.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.@".unicodeScalars.contains(scalar))
        }
        if plain, !uid.isEmpty, uid.count <= 200, !uid.hasPrefix(".") { return uid + ".ics" }
        return UUID().uuidString.lowercased() + ".ics"
    }
}
