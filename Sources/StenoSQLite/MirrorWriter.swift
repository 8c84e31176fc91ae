import Foundation
import GRDB
import StenoCatalog
import StenoCore
import StenoJSON

/// Applies one ``CalendarChangeSet`` inside a write transaction.
///
/// A resource's occurrences are replaced as a whole within the change set's window: reported
/// ones are inserted or updated (unchanged ones, recognised by fingerprint, are not touched),
/// unreported ones are tombstoned, and those starting outside the window are left as they
/// were. Tombstoned rows keep their meeting, so revalidation can tell "event gone" from
/// "never mirrored"; an occurrence that comes back is revived in place.
struct MirrorWriter {
    let db: Database
    let now: Int64
    var summary = MirrorChangeSummary()
    /// The resources whose rows this writer inserted, changed or tombstoned.
    var changedResources: Set<String> = []
    private let statements: MirrorStatements
    /// Orders every row this change set writes for the change feeds.
    private var clock: ChangeClock
    /// The owner of the account whose change set is applied: whose copies the events are.
    private var ownerID: Int64 = 0

    init(db: Database, now: Int64) {
        self.db = db
        self.now = now
        statements = MirrorStatements(db)
        clock = ChangeClock(now: now)
    }

    /// What the mirror holds of one event row.
    struct ExistingRow {
        var id: Int64
        var fingerprint: Int64?
        var isDeleted: Bool
        var meetingID: Int64?
        /// Milliseconds since 1970.
        var startsAt: Int64

        /// From the columns id, resource, remote_id, fingerprint, deleted, meeting_id, starts_at
        /// (by position: finding columns by name was a tenth of a large change set's lookup).
        init(_ row: Row) {
            id = row[0]
            fingerprint = row[3]
            isDeleted = row[4]
            meetingID = row[5]
            startsAt = row[6]
        }
    }

    mutating func apply(_ changes: CalendarChangeSet, accountID: Int64) throws -> MirrorChangeSummary {
        guard let ownerID = try Int64.fetchOne(db, sql: "SELECT owner_id FROM calendar_accounts WHERE id = ?", arguments: [accountID]) else {
            throw StoreError.notFound(entity: "calendar account", reference: String(accountID))
        }
        self.ownerID = ownerID
        let changes = ForgottenPerson.redacting(changes, keys: try SQLiteCatalog.forgottenKeys(in: db))
        let calendarID = try upsertCalendar(changes.calendar, accountID: accountID)
        // A disabled calendar is not mirrored: what a sync or a write still sends for it is dropped.
        guard try Bool.fetchOne(db, sql: "SELECT is_enabled FROM calendars WHERE id = ?", arguments: [calendarID]) ?? true else {
            return summary
        }
        // An incremental change set reads only the rows of the resources it names: a sync of
        // ten changes in a calendar of 100,000 events touches ten resources, not the calendar.
        var existing = changes.scope == .complete
            ? try existingRows(calendarID: calendarID)
            : try existingRows(calendarID: calendarID, resources: changes.updatedResources.map(\.resource) + changes.removedResources)
        for update in changes.updatedResources {
            try replace(resource: update, calendarID: calendarID, existing: existing[update.resource] ?? [:], window: changes.window)
            existing[update.resource] = nil
        }
        if changes.keepsResourceTags { try remember(changes.updatedResources, calendarID: calendarID) }
        for resource in changes.removedResources {
            let deletedBefore = summary.deleted
            try tombstone(existing[resource] ?? [:])
            if summary.deleted != deletedBefore { changedResources.insert(resource) }
            try forget(resource: resource, calendarID: calendarID)
            existing[resource] = nil
        }
        if changes.scope == .complete {
            // Everything the source no longer lists is gone.
            for rows in existing.values { try tombstone(rows) }
            try forgetResources(calendarID: calendarID, except: Set(changes.updatedResources.map(\.resource)))
        }
        if changes.fromHistory, let span = changes.window {
            try db.execute(
                sql: """
                    UPDATE events SET from_history = 1
                    WHERE calendar_id = ? AND starts_at >= ? AND starts_at < ? AND from_history = 0 AND deleted_at IS NULL
                    """,
                arguments: [calendarID, SQLiteCatalog.milliseconds(span.start), SQLiteCatalog.milliseconds(span.end)])
        }
        try refreshMeetings(summary.touchedMeetingIDs)
        try refreshSearch(meetingIDs: summary.touchedMeetingIDs)
        try clock.save(db)
        if let state = changes.syncState {
            try db.execute(
                sql: "UPDATE calendars SET sync_state = ?, updated_at = ? WHERE id = ?", arguments: [state, now, calendarID])
        }
        return summary
    }

    /// Re-indexes the touched meetings for `steno search`: title, and the name and email of the
    /// organizer and every attendee, in one pass over each meeting's live events.
    ///
    /// Two statements for the whole change set (the ids passed as one JSON array), not two per
    /// meeting: a full sync touches tens of thousands of meetings, and per-statement overhead
    /// was most of the cost. Only meetings that can have a row are deleted first: FTS5 looks
    /// each id up even when it has none, and a meeting above the last indexed id is new.
    func refreshSearch(meetingIDs: Set<Int64>) throws {
        guard !meetingIDs.isEmpty else { return }
        let lastIndexed = try Int64.fetchOne(db.cachedStatement(sql: "SELECT rowid FROM meeting_search ORDER BY rowid DESC LIMIT 1")) ?? 0
        let indexed = meetingIDs.filter { $0 <= lastIndexed }
        if !indexed.isEmpty {
            try db.cachedStatement(sql: "DELETE FROM meeting_search WHERE rowid IN (SELECT value FROM json_each(?))")
                .execute(arguments: [SQLiteCatalog.jsonArray(indexed)])
        }
        let ids = SQLiteCatalog.jsonArray(meetingIDs)
        try db.cachedStatement(
            sql: """
                INSERT INTO meeting_search (rowid, title, attendees)
                SELECT m.id, m.title,
                    (SELECT group_concat(
                         coalesce(coalesce(e.organizer_name, '') || ' ' || e.organizer_email || ' ', '')
                             || coalesce((SELECT group_concat(coalesce(a.name, '') || ' ' || a.email, ' ') FROM event_attendees a
                                          WHERE a.event_id = e.id), ''),
                         ' ')
                     FROM events e WHERE e.meeting_id = m.id AND e.deleted_at IS NULL)
                FROM meetings m WHERE m.id IN (SELECT value FROM json_each(?))
                """
        ).execute(arguments: [ids])
    }

    func upsertCalendar(_ calendar: CalendarDescriptor, accountID: Int64) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO calendars (account_id, remote_id, name, color, time_zone, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(account_id, remote_id) DO UPDATE SET name = excluded.name, color = excluded.color,
                    time_zone = coalesce(excluded.time_zone, time_zone), updated_at = excluded.updated_at
                WHERE name IS NOT excluded.name OR color IS NOT excluded.color
                    OR (excluded.time_zone IS NOT NULL AND time_zone IS NOT excluded.time_zone)
                """,
            arguments: [accountID, calendar.remoteID, calendar.name, calendar.color, calendar.timeZone, now, now])
        return try Int64.fetchOne(
            db, sql: "SELECT id FROM calendars WHERE account_id = ? AND remote_id = ?", arguments: [accountID, calendar.remoteID]) ?? 0
    }

    /// resource → remote id → row, for every event row of the calendar.
    func existingRows(calendarID: Int64) throws -> [String: [String: ExistingRow]] {
        var rows: [String: [String: ExistingRow]] = [:]
        let cursor = try Row.fetchCursor(
            db,
            sql: """
                SELECT e.id, \(StoredEventKeys.resource), e.remote_id, e.fingerprint, e.deleted_at IS NOT NULL, e.meeting_id, e.starts_at
                FROM events e WHERE e.calendar_id = ?
                """,
            arguments: [calendarID])
        while let row = try cursor.next() {
            rows[row[1], default: [:]][row[2]] = ExistingRow(row)
        }
        return rows
    }

    /// resource → remote id → row, for the event rows of the named resources only: one query,
    /// the names passed as a JSON array and each looked up by index (the second half for rows
    /// whose resource is their remote id and so stores none). A name listed twice finds the
    /// same rows twice, which the dictionary absorbs.
    func existingRows(calendarID: Int64, resources: [String]) throws -> [String: [String: ExistingRow]] {
        var rows: [String: [String: ExistingRow]] = [:]
        let cursor = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT e.id, e.resource, e.remote_id, e.fingerprint, e.deleted_at IS NOT NULL, e.meeting_id, e.starts_at
                    FROM json_each(?2) j CROSS JOIN events e ON e.calendar_id = ?1 AND e.resource = j.value
                    UNION ALL
                    SELECT e.id, e.remote_id, e.remote_id, e.fingerprint, e.deleted_at IS NOT NULL, e.meeting_id, e.starts_at
                    FROM json_each(?2) j CROSS JOIN events e ON e.calendar_id = ?1 AND e.remote_id = j.value WHERE e.resource IS NULL
                    """),
            arguments: [calendarID, SQLiteCatalog.jsonArray(resources)])
        while let row = try cursor.next() {
            rows[row[1], default: [:]][row[2]] = ExistingRow(row)
        }
        return rows
    }

    /// Records resources and their ETags, with or without occurrences in the window, so ETag
    /// comparison knows them next time: one statement for all, the pairs passed as one JSON
    /// array.
    func remember(_ updates: [ResourceUpdate], calendarID: Int64) throws {
        guard !updates.isEmpty else { return }
        var pairs = JSONArrayWriter(reservingCapacity: updates.count * 96)
        for update in updates {
            pairs.appendArray { pair in
                pair.append(update.resource)
                pair.append(update.etag)
            }
        }
        try db.cachedStatement(
            sql: """
                INSERT INTO calendar_resources (calendar_id, resource, etag, updated_at)
                SELECT ?, value ->> 0, value ->> 1, ? FROM json_each(?)
                WHERE true
                ON CONFLICT(calendar_id, resource) DO UPDATE SET etag = excluded.etag, updated_at = excluded.updated_at
                WHERE etag IS NOT excluded.etag
                """
        ).execute(arguments: [calendarID, now, pairs.text])
    }

    /// Drops a resource the source deleted.
    func forget(resource: String, calendarID: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM calendar_resources WHERE calendar_id = ? AND resource = ?")
            .execute(arguments: [calendarID, resource])
    }

    /// Drops every resource of the calendar not in `listed` (a complete change set).
    func forgetResources(calendarID: Int64, except listed: Set<String>) throws {
        let known = try String.fetchAll(db, sql: "SELECT resource FROM calendar_resources WHERE calendar_id = ?", arguments: [calendarID])
        for resource in known where !listed.contains(resource) { try forget(resource: resource, calendarID: calendarID) }
    }

    mutating func replace(resource update: ResourceUpdate, calendarID: Int64, existing: [String: ExistingRow], window: DateInterval?) throws {
        let before = (summary.inserted, summary.updated, summary.deleted)
        defer {
            if (summary.inserted, summary.updated, summary.deleted) != before { changedResources.insert(update.resource) }
        }
        var leftover = existing
        for occurrence in update.occurrences {
            let previous = leftover.removeValue(forKey: occurrence.remoteID)
            let fingerprint = EventFingerprint.of(occurrence, etag: update.etag)
            let outcome = MirroredEventColumns.outcome(fingerprint: fingerprint, previous: previous.map { ($0.fingerprint, $0.isDeleted) })
            if outcome == .unchanged {
                summary.unchanged += 1
                continue
            }
            let meetingID = try upsertMeeting(occurrence)
            let eventID = try upsertEvent(
                occurrence, calendarID: calendarID, resource: update.resource, etag: update.etag, fingerprint: fingerprint,
                meetingID: meetingID)
            // A row just inserted has no attendees to replace.
            try replaceAttendees(eventID: eventID, occurrence.attendees, organizer: occurrence.organizer?.email, replacing: previous != nil)
            if outcome == .inserted { summary.inserted += 1 } else { summary.updated += 1 }
            summary.touchedMeetingIDs.insert(meetingID)
            if let old = previous?.meetingID, old != meetingID { summary.touchedMeetingIDs.insert(old) }
        }
        if let window {
            let (start, end) = (SQLiteCatalog.milliseconds(window.start), SQLiteCatalog.milliseconds(window.end))
            leftover = leftover.filter { $0.value.startsAt >= start && $0.value.startsAt < end }
        }
        try tombstone(leftover)
    }

    mutating func tombstone(_ rows: [String: ExistingRow]) throws {
        for row in rows.values where !row.isDeleted {
            try db.cachedStatement(sql: "UPDATE events SET deleted_at = ?, updated_at = ?, change_seq = ? WHERE id = ?")
                .execute(arguments: [now, now, try clock.next(db), row.id])
            summary.deleted += 1
            if let meetingID = row.meetingID { summary.touchedMeetingIDs.insert(meetingID) }
        }
    }

    /// The meeting the occurrence joins (see ``MeetingMembership``): the one of its identity, or
    /// its owner's own when that meeting belongs to people who do not vouch for them.
    func upsertMeeting(_ occurrence: EventOccurrence) throws -> Int64 {
        guard let shared = try meetingID(identity: occurrence.meetingIdentity) else {
            return try insertMeeting(identity: occurrence.meetingIdentity, occurrence)
        }
        var facts = try statements(.meetingMembership)
        facts.bind(shared)
        facts.bind(ownerID)
        facts.bind(SQLiteCatalog.jsonArray(MeetingMembership.namedAddresses(occurrence)))
        let (others, vouched) = try facts.fetchFirstRow { ($0.bool(0), $0.bool(1)) } ?? (false, false)
        if MeetingMembership.Facts(hasOthersCopies: others, isVouched: vouched).joins { return shared }
        let own = MeetingMembership.ownIdentity(occurrence.meetingIdentity, ownerID: ownerID)
        return try meetingID(identity: own) ?? insertMeeting(identity: own, occurrence)
    }

    private func meetingID(identity: String) throws -> Int64? {
        var lookup = try statements(.meetingByIdentity)
        lookup.bind(identity)
        return try lookup.fetchInt64()
    }

    private func insertMeeting(identity: String, _ occurrence: EventOccurrence) throws -> Int64 {
        var statement = try statements(.insertMeeting)
        statement.bind(identity)
        statement.bind(occurrence.title)
        statement.bind(SQLiteCatalog.milliseconds(occurrence.start))
        statement.bind(SQLiteCatalog.milliseconds(occurrence.end))
        statement.bind(now)
        statement.bind(now)
        return try statement.executeReturningInsertedRowID() ?? 0
    }

    /// Sets the touched meetings' titles and times from their chosen copies.
    func refreshMeetings(_ meetingIDs: Set<Int64>) throws {
        guard !meetingIDs.isEmpty else { return }
        try db.cachedStatement(sql: MeetingMembership.refreshFromChosenCopies(ids: "(SELECT value FROM json_each(?1))", now: "?2"))
            .execute(arguments: [SQLiteCatalog.jsonArray(meetingIDs), now])
    }

    mutating func upsertEvent(
        _ occurrence: EventOccurrence, calendarID: Int64, resource: String, etag: String?, fingerprint: Int64, meetingID: Int64
    ) throws -> Int64 {
        var statement = try statements(.upsertEvent)
        statement.bind(calendarID)
        MirroredEventColumns.add(occurrence, meetingID: meetingID, etag: etag, resource: resource, to: &statement)
        statement.bind(now)
        statement.bind(StoredEventKeys.columns(occurrence, resource: resource).resource)
        statement.bind(fingerprint)
        statement.bind(MirroredEventColumns.organizerResponse(occurrence))
        statement.bind(try clock.next(db))
        if let inserted = try statement.executeReturningInsertedRowID() { return inserted }
        var lookup = try statements(.eventByRemoteID)
        lookup.bind(calendarID)
        lookup.bind(occurrence.remoteID)
        return try lookup.fetchInt64() ?? 0
    }

    /// Replaces an event's attendees (a row just inserted has none to delete). The organizer
    /// is not among them: the events row holds them (migration 0012).
    func replaceAttendees(eventID: Int64, _ attendees: [Attendee], organizer: String?, replacing: Bool) throws {
        if replacing {
            var delete = try statements(.deleteAttendees)
            delete.bind(eventID)
            try delete.execute()
        }
        for attendee in attendees where !attendee.email.isEmpty && attendee.email != organizer {
            var insert = try statements(.insertAttendee)
            insert.bind(eventID)
            insert.bind(attendee.email)
            insert.bind(attendee.name)
            insert.bind(attendee.role.rawValue)
            insert.bind(attendee.response.rawValue)
            try insert.execute()
        }
    }
}
