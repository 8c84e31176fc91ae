import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore

/// A device's pushed events, applied to its account's mirror, and the change feeds that
/// devices follow.
extension PostgresCatalog {
    public func applyDeviceEvents(_ writes: [DeviceEventWrite], accountID: Int64, now: Date) async throws -> DeviceWriteReport {
        let now = Self.milliseconds(now)
        return try await transaction { tx in
            // The account's rows stay as read until the plan is applied: its pushes apply one after the other.
            guard try await tx.row("SELECT 1 FROM calendar_accounts WHERE id = \(accountID) FOR NO KEY UPDATE") != nil else {
                throw StoreError.notFound(entity: "calendar account", reference: String(accountID))
            }
            var plan = DeviceWritePlan(
                calendars: try await tx.rows("SELECT remote_id, name, color, time_zone FROM calendars WHERE account_id = \(accountID)")
                    .map { row in
                        let (remoteID, name, color, timeZone) = try row.decode((String, String, String?, String?).self)
                        return CalendarDescriptor(remoteID: remoteID, name: name, color: color, timeZone: timeZone)
                    })
            for write in writes {
                let stored = try await tx.rows(
                    """
                    SELECT \(unescaped: Self.deviceRowColumns)
                    FROM calendars c JOIN events e ON e.calendar_id = c.id LEFT JOIN meetings m ON m.id = e.meeting_id
                    WHERE c.account_id = \(accountID) AND (e.remote_id = \(write.remoteID)
                        OR (\(write.deletesAllOccurrences) AND starts_with(e.remote_id, \(write.remoteID + "#"))))
                    """
                ).map(Self.deviceRow)
                var request: DeviceWritePlan.StoredRow?
                if let requestID = write.fulfilledRequest {
                    request = try await tx.row(
                        """
                        SELECT \(unescaped: Self.deviceRowColumns)
                        FROM events e JOIN calendars c ON c.id = e.calendar_id LEFT JOIN meetings m ON m.id = e.meeting_id
                        WHERE e.id = \(requestID) AND c.account_id = \(accountID) AND e.deleted_at IS NULL
                            AND e.remote_id LIKE \(DeviceEventKeys.requestPrefix + "%")
                        """
                    ).map(Self.deviceRow)
                }
                plan.prepare(write, stored: stored, request: request)
            }
            var summary = MirrorChangeSummary()
            var changed: Set<String> = []
            for changes in plan.changeSets {
                let applied = try await PostgresMirrorWriter(tx: tx, now: now).apply(changes, accountID: accountID)
                summary.add(applied.summary)
                changed.formUnion(applied.changedResources)
            }
            return plan.report(changedResources: changed, changes: summary)
        }
    }

    static let deviceRowColumns = "e.remote_id, c.remote_id, e.etag, e.deleted_at IS NOT NULL, m.identity"

    static func deviceRow(_ row: PostgresRow) throws -> DeviceWritePlan.StoredRow {
        let (remoteID, calendarRemoteID, etag, isDeleted, meetingIdentity) = try row.decode((String, String, String?, Bool, String?).self)
        return DeviceWritePlan.StoredRow(
            remoteID: remoteID, calendarRemoteID: calendarRemoteID, etag: etag, isDeleted: isDeleted, meetingIdentity: meetingIdentity)
    }

    public func eventChanges(_ query: EventChangesQuery) async throws -> EventChangesPage {
        let limit = max(1, query.limit)
        var binds = PostgresBindings()
        binds.append(query.since)
        binds.append(query.includeDeleted)
        binds.append(Int64(limit + 1))
        let scope: String
        switch query.scope {
        case .account(let accountID):
            scope = "a.id = $4"
            binds.append(accountID)
        case .visibleTo(let ownerID, let deviceAccountID):
            // Requests are addressed to one device: other devices of the owner must not
            // create the same event again.
            scope = "\(CatalogSQL.eventConcerns("$4")) AND (a.id = $5 OR e.remote_id NOT LIKE '\(DeviceEventKeys.requestPrefix)%')"
            binds.append(ownerID)
            binds.append(deviceAccountID)
        }
        let sql = """
            SELECT e.id, e.calendar_id, e.meeting_id, e.remote_id, e.ical_uid, \(StoredEventKeys.seriesUID) AS series_uid,
                e.recurrence_id, e.title, e.starts_at, e.ends_at, e.time_zone, e.is_all_day, e.all_day_start, e.all_day_end,
                e.status, e.organizer_email::text AS organizer_email, e.organizer_name, e.organizer_response, e.location,
                e.online_meeting_url, e.web_link, e.etag, e.deleted_at, e.updated_at, e.change_seq,
                \(StoredEventKeys.resource) AS resource, m.identity AS meeting_identity,
                c.remote_id AS calendar_remote_id, c.name AS calendar_name, a.id AS account_id, a.provider, d.id AS device_id
            FROM events e
            JOIN calendars c ON c.id = e.calendar_id JOIN calendar_accounts a ON a.id = c.account_id
            LEFT JOIN devices d ON d.account_id = a.id LEFT JOIN meetings m ON m.id = e.meeting_id
            WHERE e.change_seq > $1 AND ($2 OR e.deleted_at IS NULL) AND \(scope)
            ORDER BY e.change_seq LIMIT $3
            """
        return try await transaction { tx in
            // One snapshot for the page and the clock: a change committed between two reads
            // must not be counted as seen.
            try await tx.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            let rows = try await tx.rows(PostgresQuery(unsafeSQL: sql, binds: binds))
            let page = Array(rows.prefix(limit))
            let attendees = try await Self.attendees(tx, ofEvents: page.map { try $0.makeRandomAccess()["id"].decode(Int64.self) })
            let events = try page.map { row in
                let columns = row.makeRandomAccess()
                let event = try Self.mirroredEvent(row, attendees: attendees)
                return EventChange(
                    id: event.id, provider: CalendarProviderKind(rawValue: try columns["provider"].decode(String.self)) ?? .ics,
                    accountID: try columns["account_id"].decode(Int64.self), deviceID: try columns["device_id"].decode(Int64?.self),
                    calendarRemoteID: try columns["calendar_remote_id"].decode(String.self),
                    calendarName: try columns["calendar_name"].decode(String.self), meetingID: event.meetingID, etag: event.etag,
                    changeSequence: try columns["change_seq"].decode(Int64?.self) ?? 0,
                    updatedAt: Self.date(milliseconds: try columns["updated_at"].decode(Int64.self)), deletedAt: event.deletedAt,
                    occurrence: event.occurrence)
            }
            let hasMore = rows.count > limit
            // A page that holds the rest says how far the catalog was when it was read: a change
            // committed after that takes a later value, so nothing between is ever skipped.
            let clock = try await tx.row("SELECT last FROM change_clock WHERE id = 1")?.decode(Int64.self) ?? 0
            let serverTime = hasMore ? (events.last?.changeSequence ?? query.since) : max(query.since, clock)
            return EventChangesPage(events: events, serverTime: serverTime, hasMore: hasMore)
        }
    }

    /// The attendee rows of some events, by event id.
    static func attendees(_ tx: PostgresTransaction, ofEvents ids: [Int64]) async throws -> [Int64: [Attendee]] {
        guard !ids.isEmpty else { return [:] }
        return try attendees(
            await tx.rows(
                """
                SELECT a.event_id, a.email::text, a.name, a.role, a.response FROM event_attendees a
                WHERE a.event_id = ANY(\(ids)::bigint[]) ORDER BY a.event_id, a.email
                """))
    }

    /// Attendee rows (event_id, email, name, role, response), by event id.
    static func attendees(_ rows: [PostgresRow]) throws -> [Int64: [Attendee]] {
        var attendees: [Int64: [Attendee]] = [:]
        for row in rows {
            let (eventID, email, name, role, response) = try row.decode((Int64, String, String?, String, String).self)
            attendees[eventID, default: []].append(
                Attendee(
                    email: email, name: name, role: AttendeeRole(rawValue: role) ?? .required,
                    response: AttendeeResponse(rawValue: response) ?? .none))
        }
        return attendees
    }
}
