import Foundation
import StenoCore
import StenoJSON

/// Write-back to Microsoft Graph: create an event for a recording that has none,
/// rename a meeting.
///
/// - create: `POST /{mailbox}/events` with a `transactionId` (the event's UID), so a request
///   retried after a lost answer does not create the event twice.
/// - rename: `PATCH` with `If-Match` and the change key the preceding `GET` returned; on 412
///   (changed in between) read it again and retry once. An occurrence of a recurring series
///   renames the series (its master); an exception is renamed itself as well, since it keeps
///   a subject of its own.
///
/// The calendar's remote id is the mailbox path (`me`, `users/{upn}`); an event's resource is
/// its Graph id.
extension GraphProvider: CalendarEventWriter {
    public func create(_ event: NewCalendarEvent, calendarRemoteID: String, context: CalendarAccountContext) async throws
        -> CalendarEventRef
    {
        let setup = try GraphAccountSetup(account: context.account)
        let client = makeClient(setup: setup, context: context)
        let url = setup.endpoints.graphURL.appendingPathComponent(calendarRemoteID).appendingPathComponent("events")
        var object: [String: JSONValue] = [
            "subject": .string(event.title),
            "start": ["dateTime": .string(LocalDateTime(utc: event.start).description), "timeZone": "UTC"],
            "end": ["dateTime": .string(LocalDateTime(utc: max(event.end, event.start)).description), "timeZone": "UTC"],
            // The recording is over: nobody needs reminding of it.
            "isReminderOn": false,
        ]
        if let uid = event.uid { object["transactionId"] = .string(uid) }
        if let location = event.location { object["location"] = ["displayName": .string(location)] }
        if let description = event.description { object["body"] = ["contentType": "text", "content": .string(description)] }
        let body = Data(JSONValue.object(object).serializedBytes)
        let response = try await client.send("POST", url, mailbox: calendarRemoteID, body: body, headers: [Self.preferUTC])
        guard response.status == 201 || response.status == 200 else {
            throw writeError(response, doing: "create an event in \(calendarRemoteID)", context: context, setup: setup)
        }
        return try reference(response, calendarRemoteID: calendarRemoteID, doing: "POST \(url.path)")
    }

    public func rename(_ event: CalendarEventRef, title: String, context: CalendarAccountContext) async throws -> CalendarEventRef {
        let setup = try GraphAccountSetup(account: context.account)
        let client = makeClient(setup: setup, context: context)
        let mailbox = event.calendarRemoteID
        let named = try await current(event.resource, mailbox: mailbox, client: client, setup: setup)
        var renamed = event
        if let master = named.seriesMasterId, named.type == "occurrence" || named.type == "exception" {
            _ = try await patchSubject(master, knownChangeKey: nil, title: title, mailbox: mailbox, client: client, setup: setup, context: context)
            guard named.type == "exception" else {
                // The occurrences follow their master; the next sync mirrors them.
                renamed.occurrence = nil
                return renamed
            }
        }
        let response = try await patchSubject(
            event.resource, knownChangeKey: named.changeKey, title: title, mailbox: mailbox, client: client, setup: setup, context: context)
        renamed = try reference(response, calendarRemoteID: mailbox, doing: "PATCH \(event.resource)")
        return renamed
    }

    /// `PATCH {"subject": title}` guarded by the change key (read first unless known), retried
    /// once after a 412.
    private func patchSubject(
        _ id: String, knownChangeKey: String?, title: String, mailbox: String, client: GraphClient, setup: GraphAccountSetup,
        context: CalendarAccountContext
    ) async throws -> HTTPResponseValue {
        let url = eventURL(id, mailbox: mailbox, setup: setup)
        let body = Data(JSONValue.object(["subject": .string(title)]).serializedBytes)
        return try await ConditionalWrite.retryingOnce(target: "event \(id) in \(mailbox)", request: "PATCH with If-Match", logger: context.logger) {
            isRetry in
            var changeKey = knownChangeKey
            if isRetry || changeKey == nil { changeKey = try await current(id, mailbox: mailbox, client: client, setup: setup).changeKey }
            var headers = [Self.preferUTC]
            if let changeKey { headers.append(("If-Match", "W/\"\(changeKey)\"")) }
            let response = try await client.send("PATCH", url, mailbox: mailbox, body: body, headers: headers)
            switch response.status {
            case 200, 204: return .written(response)
            case 412: return .changedMeanwhile
            default: throw writeError(response, doing: "rename event \(id) in \(mailbox)", context: context, setup: setup)
            }
        }
    }

    /// The event as Graph holds it now (the fields a rename needs).
    private func current(_ id: String, mailbox: String, client: GraphClient, setup: GraphAccountSetup) async throws -> GraphEventPayload {
        var components = URLComponents(url: eventURL(id, mailbox: mailbox, setup: setup), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "$select", value: "id,subject,type,seriesMasterId,changeKey")]
        guard let url = components?.url else { throw CalendarSyncError.badSource("no URL for event \(id)") }
        let response = try await client.get(url, mailbox: mailbox, headers: [Self.preferUTC])
        switch response.status {
        case 200:
            do {
                return try GraphPageReader.event(response.body)
            } catch {
                throw CalendarSyncError.malformedResponse("GET \(url.path): not a readable event (\(error))")
            }
        case 404, 410:
            throw CalendarWriteError.notFound("event \(id) is gone from \(mailbox) at Microsoft Graph (HTTP \(response.status)); sync the account")
        default:
            throw CalendarSyncError.badSource("GET \(url.path) failed: \(GraphError(response))")
        }
    }

    /// The reference (and the mirrored occurrence) of an event a write answered with.
    private func reference(_ response: HTTPResponseValue, calendarRemoteID: String, doing: String) throws -> CalendarEventRef {
        guard !response.body.isEmpty else { throw CalendarSyncError.malformedResponse("\(doing): Graph answered without the event") }
        let payload: GraphEventPayload
        do {
            payload = try GraphPageReader.event(response.body)
        } catch {
            throw CalendarSyncError.malformedResponse("\(doing): not a readable event (\(error))")
        }
        return CalendarEventRef(
            calendarRemoteID: calendarRemoteID, resource: payload.id, uid: payload.iCalUId, etag: payload.changeKey,
            occurrence: try? payload.mirrored())
    }

    /// A refused write as the caller should see it.
    private func writeError(_ response: HTTPResponseValue, doing: String, context: CalendarAccountContext, setup: GraphAccountSetup) -> any Error {
        let error = GraphError(response)
        switch response.status {
        case 403:
            let fix = setup.mode == .delegated
                ? "sign in again with write access: steno accounts signin \(context.account.id) --write"
                : "grant the application the Calendars.ReadWrite application permission in Microsoft Entra"
            return CalendarWriteError.notPermitted("Microsoft Graph refused to \(doing) (\(error)); the account may only read: \(fix)")
        case 404, 410:
            return CalendarWriteError.notFound("Microsoft Graph could not \(doing) (\(error)); sync the account")
        case 409:
            return CalendarWriteError.conflict("Microsoft Graph could not \(doing) (\(error))")
        default:
            return CalendarSyncError.badSource("Microsoft Graph could not \(doing) (\(error))")
        }
    }

    func eventURL(_ id: String, mailbox: String, setup: GraphAccountSetup) -> URL {
        setup.endpoints.graphURL.appendingPathComponent(mailbox).appendingPathComponent("events").appendingPathComponent(id)
    }

    /// Times in UTC and ids that survive a move between folders, as the sync reads them.
    static let preferUTC = ("Prefer", "outlook.timezone=\"UTC\", IdType=\"ImmutableId\"")
}
