import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// Calendars and the mirror of their events. Change sets go through ``PostgresMirrorWriter``,
/// one transaction each.
extension PostgresCatalog: CalendarStore {
    public func calendars(accountID: Int64?, ownerID: Int64?) async throws -> [CalendarInfo] {
        try await rows(
            """
            SELECT c.id, c.account_id, c.remote_id, c.name, c.color, c.time_zone, c.sync_state,
                (SELECT count(*) FROM events e WHERE e.calendar_id = c.id AND e.deleted_at IS NULL), c.is_enabled
            FROM calendars c JOIN calendar_accounts a ON a.id = c.account_id
            WHERE (\(accountID)::bigint IS NULL OR c.account_id = \(accountID)) AND (\(ownerID)::bigint IS NULL OR a.owner_id = \(ownerID))
            ORDER BY c.id
            """
        ).map { row in
            let (id, accountID, remoteID, name, color, timeZone, syncState, eventCount, isEnabled) = try row.decode(
                (Int64, Int64, String, String, String?, String?, String?, Int64, Bool).self)
            return CalendarInfo(
                id: id, accountID: accountID, remoteID: remoteID, name: name, color: color, timeZone: timeZone, syncState: syncState,
                eventCount: Int(eventCount), isEnabled: isEnabled)
        }
    }

    public func resourceTags(accountID: Int64, calendarRemoteID: String) async throws -> [String: String?] {
        var tags: [String: String?] = [:]
        for row in try await rows(
            """
            SELECT r.resource, r.etag FROM calendar_resources r JOIN calendars c ON c.id = r.calendar_id
            WHERE c.account_id = \(accountID) AND c.remote_id = \(calendarRemoteID)
            """)
        {
            let (resource, etag) = try row.decode((String, String?).self)
            tags[resource] = .some(etag)
        }
        return tags
    }

    public func resources(accountID: Int64, calendarRemoteID: String, overlapping window: DateInterval) async throws -> Set<String> {
        Set(
            try await rows(
                """
                SELECT \(unescaped: StoredEventKeys.resource) FROM events e JOIN calendars c ON c.id = e.calendar_id
                WHERE c.account_id = \(accountID) AND c.remote_id = \(calendarRemoteID) AND e.deleted_at IS NULL
                    AND e.starts_at < \(Self.milliseconds(window.end)) AND e.ends_at > \(Self.milliseconds(window.start))
                """
            ).map { try $0.decode(String.self) })
    }

    public func applyCalendarChanges(_ changes: CalendarChangeSet, accountID: Int64, now: Date) async throws -> MirrorChangeSummary {
        let now = Self.milliseconds(now)
        return try await transaction { tx in
            try await PostgresMirrorWriter(tx: tx, now: now).apply(changes, accountID: accountID).summary
        }
    }

    public func setCalendarEnabled(id: Int64, enabled: Bool, now: Date) async throws -> CalendarInfo {
        let milliseconds = Self.milliseconds(now)
        let accountID = try await transaction { tx -> Int64 in
            guard let row = try await tx.row("SELECT account_id, remote_id, name, is_enabled FROM calendars WHERE id = \(id)") else {
                throw StoreError.notFound(entity: "calendar", reference: String(id))
            }
            let (accountID, remoteID, name, isEnabled) = try row.decode((Int64, String, String, Bool).self)
            if !enabled, isEnabled {
                // An empty complete listing: every event of the calendar is gone (the writer
                // locks the account, as every change set of it does).
                _ = try await PostgresMirrorWriter(tx: tx, now: milliseconds).apply(
                    CalendarChangeSet(calendar: CalendarDescriptor(remoteID: remoteID, name: name), scope: .complete), accountID: accountID)
                // Its history went with its events: enabled again, it is asked for it again.
                try await tx.execute("DELETE FROM calendar_history_spans WHERE calendar_id = \(id)")
            }
            try await tx.execute(
                "UPDATE calendars SET is_enabled = \(enabled), sync_state = NULL, updated_at = \(milliseconds) WHERE id = \(id)")
            return accountID
        }
        guard let calendar = try await calendars(accountID: accountID, ownerID: nil).first(where: { $0.id == id }) else {
            throw StoreError.notFound(entity: "calendar", reference: String(id))
        }
        return calendar
    }

    public func removeCalendars(accountID: Int64, except remoteIDs: Set<String>) async throws {
        try await execute(
            "DELETE FROM calendars WHERE account_id = \(accountID) AND NOT (remote_id = ANY(\(Array(remoteIDs))::text[]))")
    }

    public func mirroredEvents(accountID: Int64, includeDeleted: Bool) async throws -> [MirroredEvent] {
        let rows = try await rows(
            """
            SELECT e.id, e.calendar_id, e.meeting_id, e.remote_id, e.ical_uid, \(unescaped: StoredEventKeys.seriesUID) AS series_uid,
                e.recurrence_id, e.title, e.starts_at, e.ends_at, e.time_zone, e.is_all_day, e.all_day_start, e.all_day_end,
                e.status, e.organizer_email::text, e.organizer_name, e.organizer_response, e.location, e.online_meeting_url,
                e.web_link, e.etag, e.deleted_at, \(unescaped: StoredEventKeys.resource) AS resource, m.identity AS meeting_identity
            FROM events e JOIN calendars c ON c.id = e.calendar_id
            LEFT JOIN meetings m ON m.id = e.meeting_id
            WHERE c.account_id = \(accountID) AND (\(includeDeleted) OR e.deleted_at IS NULL)
            ORDER BY e.starts_at, e.id
            """)
        let attendees = try Self.attendees(
            await self.rows(
                """
                SELECT a.event_id, a.email::text, a.name, a.role, a.response FROM event_attendees a
                JOIN events e ON e.id = a.event_id JOIN calendars c ON c.id = e.calendar_id
                WHERE c.account_id = \(accountID) ORDER BY a.event_id, a.email
                """))
        return try rows.map { row in try Self.mirroredEvent(row, attendees: attendees) }
    }

    /// An event of ``mirroredEvents(accountID:includeDeleted:)``: its organizer (from the
    /// events row) first among its attendees.
    static func mirroredEvent(_ row: PostgresRow, attendees: [Int64: [Attendee]]) throws -> MirroredEvent {
        let columns = row.makeRandomAccess()
        func text(_ name: String) throws -> String? { try columns[name].decode(String?.self) }
        func instant(_ name: String) throws -> Date? { try columns[name].decode(Int64?.self).map(date(milliseconds:)) }
        let id = try columns["id"].decode(Int64.self)
        let invited = attendees[id] ?? []
        let organizer = MeetingAttendees.organizer(
            email: try text("organizer_email"), name: try text("organizer_name"), response: try text("organizer_response"))
        let occurrence = EventOccurrence(
            remoteID: try columns["remote_id"].decode(String.self), iCalUID: try text("ical_uid"), seriesUID: try text("series_uid"),
            recurrenceID: try instant("recurrence_id"), meetingIdentity: try text("meeting_identity") ?? "",
            title: try columns["title"].decode(String.self),
            start: date(milliseconds: try columns["starts_at"].decode(Int64.self)),
            end: date(milliseconds: try columns["ends_at"].decode(Int64.self)), timeZone: try text("time_zone"),
            isAllDay: try columns["is_all_day"].decode(Bool.self), allDayStart: try text("all_day_start"),
            allDayEnd: try text("all_day_end"), status: EventStatus(rawValue: try columns["status"].decode(String.self)) ?? .confirmed,
            organizer: organizer,
            attendees: organizer.map { organizer in [organizer] + invited.filter { $0.email != organizer.email } } ?? invited,
            location: try text("location"), onlineMeetingURL: try text("online_meeting_url"), webLink: try text("web_link"))
        return MirroredEvent(
            id: id, calendarID: try columns["calendar_id"].decode(Int64.self), meetingID: try columns["meeting_id"].decode(Int64?.self),
            resource: try text("resource"), etag: try text("etag"), deletedAt: try instant("deleted_at"), occurrence: occurrence)
    }
}

/// Where mirrored events live at their sources, for write-back and for lookups of linked
/// events outside the mirrored window.
extension PostgresCatalog {
    public func eventSources(eventIDs: [Int64]) async throws -> [Int64: EventSource] {
        guard !eventIDs.isEmpty else { return [:] }
        let sources = try await rows(
            PostgresQuery(unsafeSQL: Self.eventSourceSelect + " WHERE e.id = ANY($1::bigint[])", binds: Self.bindings(eventIDs))
        ).map(Self.eventSource)
        return Dictionary(sources.map { ($0.eventID, $0) }) { first, _ in first }
    }

    public func eventSources(meetingID: Int64) async throws -> [EventSource] {
        try await rows(
            PostgresQuery(
                unsafeSQL: Self.eventSourceSelect + " WHERE e.meeting_id = $1 AND e.deleted_at IS NULL ORDER BY e.id",
                binds: Self.bindings(meetingID))
        ).map(Self.eventSource)
    }

    public func eventSource(accountID: Int64, calendarRemoteID: String, remoteID: String) async throws -> EventSource? {
        var binds = PostgresBindings()
        binds.append(accountID)
        binds.append(calendarRemoteID)
        binds.append(remoteID)
        return try await rows(
            PostgresQuery(
                unsafeSQL: Self.eventSourceSelect + " WHERE c.account_id = $1 AND c.remote_id = $2 AND e.remote_id = $3", binds: binds)
        ).first.map(Self.eventSource)
    }

    static let eventSourceSelect = """
        SELECT e.id, e.meeting_id, a.id, a.owner_id, a.provider, c.remote_id, c.name, \(StoredEventKeys.resource), e.ical_uid,
            e.title, e.starts_at, e.etag, e.deleted_at IS NOT NULL,
            EXISTS (SELECT 1 FROM user_emails ue WHERE ue.user_id = a.owner_id AND ue.email = e.organizer_email)
        FROM events e JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
        """

    static func bindings<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(value)
        return bindings
    }

    static func eventSource(_ row: PostgresRow) throws -> EventSource {
        let columns = row.makeRandomAccess()
        return EventSource(
            eventID: try columns[0].decode(Int64.self), meetingID: try columns[1].decode(Int64?.self),
            accountID: try columns[2].decode(Int64.self), ownerID: try columns[3].decode(Int64.self),
            provider: CalendarProviderKind(rawValue: try columns[4].decode(String.self)) ?? .ics,
            calendarRemoteID: try columns[5].decode(String.self), calendarName: try columns[6].decode(String.self),
            resource: try columns[7].decode(String.self), iCalUID: try columns[8].decode(String?.self),
            title: try columns[9].decode(String.self), start: date(milliseconds: try columns[10].decode(Int64.self)),
            etag: try columns[11].decode(String?.self), ownerOrganizes: try columns[13].decode(Bool.self),
            isDeleted: try columns[12].decode(Bool.self))
    }
}
