import Foundation
import PostgresNIO
import StenoCatalog
import StenoCore
import StenoJSON

/// Applies one ``CalendarChangeSet`` inside a transaction, with SQLite's semantics
/// (`MirrorWriter`): a resource's occurrences are replaced as a whole within the window,
/// unchanged ones (same fingerprint) are not touched, unreported ones are tombstoned and keep
/// their meeting, and one that comes back is revived in place.
///
/// Where SQLite writes row by row, this plans the whole change set in Swift first, then writes
/// each kind of row with one statement (the rows passed as one JSON array). Every row written
/// takes the next value of the change clock, reserved with one `UPDATE … RETURNING` whose row
/// lock lasts until commit, so change numbers become visible in order.
struct PostgresMirrorWriter {
    let tx: PostgresTransaction
    /// Milliseconds since 1970.
    let now: Int64

    /// What the mirror holds of one event row before the change set.
    struct ExistingRow {
        var id: Int64
        var remoteID: String
        var fingerprint: Int64?
        var isDeleted: Bool
        var meetingID: Int64?
        var startsAt: Int64
    }

    /// One occurrence to insert or update.
    struct Write {
        var occurrence: EventOccurrence
        var resource: String
        var etag: String?
        var fingerprint: Int64
        var previous: ExistingRow?
    }

    /// A change of one row, in the order SQLite's writer makes them: the last for a row wins.
    enum Step {
        case write(Write)
        case tombstone(ExistingRow)

        var remoteID: String {
            switch self {
            case .write(let write): write.occurrence.remoteID
            case .tombstone(let row): row.remoteID
            }
        }
    }

    /// The summary, and the resources whose rows were inserted, changed or tombstoned.
    func apply(_ changes: CalendarChangeSet, accountID: Int64) async throws -> (summary: MirrorChangeSummary, changedResources: Set<String>) {
        // Shared by change sets, exclusive to an erasure: one applied while a person is being
        // forgotten waits for the erasure to commit, then reads the person's key below.
        try await tx.execute("SELECT pg_advisory_xact_lock_shared(\(PostgresCatalog.erasureLockKey))")
        // Change sets of one account apply one after the other.
        guard
            let (ownerID, forgottenKeys) = try await tx.row(
                "SELECT owner_id, ARRAY(\(unescaped: CatalogSQL.forgottenKeys)) FROM calendar_accounts WHERE id = \(accountID) FOR NO KEY UPDATE"
            )?.decode((Int64, [String]).self)
        else {
            throw StoreError.notFound(entity: "calendar account", reference: String(accountID))
        }
        let changes = ForgottenPerson.redacting(changes, keys: Set(forgottenKeys))
        let calendarID = try await upsertCalendar(changes.calendar, accountID: accountID)
        // A disabled calendar is not mirrored: what a sync or a write still sends for it is dropped.
        guard try await tx.row("SELECT is_enabled FROM calendars WHERE id = \(calendarID)")?.decode(Bool.self) ?? true else {
            return (MirrorChangeSummary(), [])
        }
        var existing = try await existingRows(
            calendarID: calendarID,
            resources: changes.scope == .complete ? nil : changes.updatedResources.map(\.resource) + changes.removedResources)
        var summary = MirrorChangeSummary()
        var steps: [Step] = []

        func tombstone(_ rows: [String: ExistingRow]) {
            for row in rows.values where !row.isDeleted {
                steps.append(.tombstone(row))
                summary.deleted += 1
                if let meetingID = row.meetingID { summary.touchedMeetingIDs.insert(meetingID) }
            }
        }
        var changedResources: Set<String> = []
        func written() -> Int { summary.inserted + summary.updated + summary.deleted }
        for update in changes.updatedResources {
            let before = written()
            defer { if written() != before { changedResources.insert(update.resource) } }
            var leftover = existing.removeValue(forKey: update.resource) ?? [:]
            for occurrence in update.occurrences {
                let previous = leftover.removeValue(forKey: occurrence.remoteID)
                let fingerprint = EventFingerprint.of(occurrence, etag: update.etag)
                switch MirroredEventColumns.outcome(fingerprint: fingerprint, previous: previous.map { ($0.fingerprint, $0.isDeleted) }) {
                case .unchanged:
                    summary.unchanged += 1
                    continue
                case .inserted: summary.inserted += 1
                case .updated: summary.updated += 1
                }
                steps.append(
                    .write(Write(occurrence: occurrence, resource: update.resource, etag: update.etag, fingerprint: fingerprint, previous: previous)))
            }
            if let window = changes.window {
                let (start, end) = (PostgresCatalog.milliseconds(window.start), PostgresCatalog.milliseconds(window.end))
                leftover = leftover.filter { $0.value.startsAt >= start && $0.value.startsAt < end }
            }
            tombstone(leftover)
        }
        for resource in changes.removedResources {
            let before = written()
            tombstone(existing.removeValue(forKey: resource) ?? [:])
            if written() != before { changedResources.insert(resource) }
        }
        if changes.scope == .complete {
            // Everything the source no longer lists is gone.
            for rows in existing.values { tombstone(rows) }
        }

        try await write(try await joiningMeetings(steps, ownerID: ownerID), calendarID: calendarID, summary: &summary)
        try await refreshMeetings(summary.touchedMeetingIDs)
        try await updateResources(changes, calendarID: calendarID)
        if changes.fromHistory, let span = changes.window {
            let (start, end) = (PostgresCatalog.milliseconds(span.start), PostgresCatalog.milliseconds(span.end))
            try await tx.execute(
                """
                UPDATE events SET from_history = TRUE
                WHERE calendar_id = \(calendarID) AND starts_at >= \(start) AND starts_at < \(end) AND NOT from_history AND deleted_at IS NULL
                """)
        }
        try await refreshSearch(meetingIDs: summary.touchedMeetingIDs)
        if let state = changes.syncState {
            try await tx.execute("UPDATE calendars SET sync_state = \(state), updated_at = \(now) WHERE id = \(calendarID)")
        }
        return (summary, changedResources)
    }

    func upsertCalendar(_ calendar: CalendarDescriptor, accountID: Int64) async throws -> Int64 {
        if let changed = try await tx.row(
            """
            INSERT INTO calendars (account_id, remote_id, name, color, time_zone, created_at, updated_at)
            VALUES (\(accountID), \(calendar.remoteID), \(calendar.name), \(calendar.color), \(calendar.timeZone), \(now), \(now))
            ON CONFLICT (account_id, remote_id) DO UPDATE SET name = excluded.name, color = excluded.color,
                time_zone = coalesce(excluded.time_zone, calendars.time_zone), updated_at = excluded.updated_at
            WHERE calendars.name IS DISTINCT FROM excluded.name OR calendars.color IS DISTINCT FROM excluded.color
                OR (excluded.time_zone IS NOT NULL AND calendars.time_zone IS DISTINCT FROM excluded.time_zone)
            RETURNING id
            """)
        {
            return try changed.decode(Int64.self)
        }
        guard
            let id = try await tx.row("SELECT id FROM calendars WHERE account_id = \(accountID) AND remote_id = \(calendar.remoteID)")?
                .decode(Int64.self)
        else { throw StoreError.notFound(entity: "calendar", reference: calendar.remoteID) }
        return id
    }

    /// resource → remote id → row: every row of the calendar, or only those of the named
    /// resources (an incremental change set touches ten resources, not the calendar).
    func existingRows(calendarID: Int64, resources: [String]?) async throws -> [String: [String: ExistingRow]] {
        let columns = "e.id, e.remote_id, e.fingerprint, e.deleted_at IS NOT NULL, e.meeting_id, e.starts_at"
        let rows: [PostgresRow]
        if let resources {
            rows = try await tx.rows(
                """
                SELECT e.resource, \(unescaped: columns) FROM events e
                WHERE e.calendar_id = \(calendarID) AND e.resource = ANY(\(resources)::text[])
                UNION ALL
                SELECT e.remote_id, \(unescaped: columns) FROM events e
                WHERE e.calendar_id = \(calendarID) AND e.remote_id = ANY(\(resources)::text[]) AND e.resource IS NULL
                """)
        } else {
            rows = try await tx.rows(
                "SELECT \(unescaped: StoredEventKeys.resource), \(unescaped: columns) FROM events e WHERE e.calendar_id = \(calendarID)")
        }
        var existing: [String: [String: ExistingRow]] = [:]
        for row in rows {
            let (resource, id, remoteID, fingerprint, isDeleted, meetingID, startsAt) = try row.decode(
                (String, Int64, String, Int64?, Bool, Int64?, Int64).self)
            existing[resource, default: [:]][remoteID] = ExistingRow(
                id: id, remoteID: remoteID, fingerprint: fingerprint, isDeleted: isDeleted, meetingID: meetingID, startsAt: startsAt)
        }
        return existing
    }

    /// Writes the planned steps: meetings, then events with their attendees, then tombstones.
    /// A row written and later tombstoned in the same change set ends tombstoned; one
    /// tombstoned and later written ends live, as SQLite's row-by-row writes leave them.
    func write(_ steps: [Step], calendarID: Int64, summary: inout MirrorChangeSummary) async throws {
        guard !steps.isEmpty else { return }
        let sequence = try await reserveChangeNumbers(steps.count)
        var lastStep: [String: Int] = [:]
        for (index, step) in steps.enumerated() { lastStep[step.remoteID] = index }
        var lastWrite: [String: Int] = [:]
        for (index, step) in steps.enumerated() { if case .write = step { lastWrite[step.remoteID] = index } }

        let writes = steps.enumerated().compactMap { index, step -> (Int, Write)? in
            guard case .write(let write) = step, lastWrite[step.remoteID] == index else { return nil }
            return (index, write)
        }
        let meetingIDs = try await upsertMeetings(steps.compactMap { if case .write(let write) = $0 { write.occurrence } else { nil } })
        for case .write(let write) in steps {
            summary.touchedMeetingIDs.formUnion([meetingIDs[write.occurrence.meetingIdentity], write.previous?.meetingID].compactMap { $0 })
        }
        var eventRows = JSONArrayWriter(reservingCapacity: writes.count * 512)
        for (index, write) in writes {
            let occurrence = write.occurrence
            eventRows.appendArray { row in
                // Swapped in and out, not copied: a copy would duplicate the whole text so far.
                var columns = JSONEventColumns(row: JSONArrayWriter())
                swap(&columns.row, &row)
                MirroredEventColumns.add(
                    occurrence, meetingID: meetingIDs[occurrence.meetingIdentity], etag: write.etag, resource: write.resource, to: &columns)
                swap(&columns.row, &row)
                row.append(StoredEventKeys.columns(occurrence, resource: write.resource).resource)
                row.append(write.fingerprint)
                row.append(MirroredEventColumns.organizerResponse(occurrence))
                row.append(sequence + Int64(index))
            }
        }
        var eventIDs: [String: Int64] = [:]
        if !writes.isEmpty {
            for row in try await tx.rows(
                """
                INSERT INTO events (calendar_id, \(unescaped: MirroredEventColumns.names), deleted_at, updated_at, resource, fingerprint,
                    organizer_response, change_seq)
                SELECT \(calendarID), r->>0, r->>1, r->>2, (r->>3)::bigint, (r->>4)::bigint, r->>5, (r->>6)::bigint, (r->>7)::bigint,
                    r->>8, (r->>9)::boolean, r->>10, r->>11, r->>12, r->>13, r->>14, r->>15, r->>16, r->>17, r->>18, NULL, \(now),
                    r->>19, (r->>20)::bigint, r->>21, (r->>22)::bigint
                FROM jsonb_array_elements(\(eventRows.text)::jsonb) AS r
                ON CONFLICT (calendar_id, remote_id) DO UPDATE SET \(unescaped: MirroredEventColumns.upsertAssignments)
                RETURNING id, remote_id
                """)
            {
                let (id, remoteID) = try row.decode((Int64, String).self)
                eventIDs[remoteID] = id
            }
            try await replaceAttendees(writes.map(\.1), eventIDs: eventIDs)
        }

        var tombstoned: [Int64] = []
        var tombstoneSequence: [Int64] = []
        for (index, step) in steps.enumerated() {
            guard case .tombstone(let row) = step, lastStep[step.remoteID] == index else { continue }
            tombstoned.append(eventIDs[row.remoteID] ?? row.id)
            tombstoneSequence.append(sequence + Int64(index))
        }
        if !tombstoned.isEmpty {
            try await tx.execute(
                """
                UPDATE events SET deleted_at = \(now), updated_at = \(now), change_seq = t.seq
                FROM unnest(\(tombstoned)::bigint[], \(tombstoneSequence)::bigint[]) AS t(id, seq) WHERE events.id = t.id
                """)
        }
    }

    /// Reserves `count` consecutive change numbers and returns the first: each is the larger of
    /// the time and the last number plus one (as SQLite's `ChangeClock`), so they read like
    /// times yet never repeat or go back. The clock row stays locked until commit.
    func reserveChangeNumbers(_ count: Int) async throws -> Int64 {
        guard
            let last = try await tx.row(
                "UPDATE change_clock SET last = greatest(\(now), last + 1) + \(Int64(count) - 1) WHERE id = 1 RETURNING last")?
                .decode(Int64.self)
        else { throw StoreError.invalid("the catalog has no change clock row") }
        return last - Int64(count) + 1
    }

    /// The steps with each written occurrence given the identity of the meeting it joins (see
    /// ``MeetingMembership``): its own, or its owner's own meeting when the meeting of its
    /// identity belongs to people who do not vouch for them. One statement reads the facts of
    /// every written occurrence whose identity names a meeting already.
    func joiningMeetings(_ steps: [Step], ownerID: Int64) async throws -> [Step] {
        var rows = JSONArrayWriter()
        var positions: [Int] = []
        for (index, step) in steps.enumerated() {
            guard case .write(let write) = step else { continue }
            positions.append(index)
            rows.appendArray { row in
                row.append(write.occurrence.meetingIdentity)
                row.append(JSONValue.array(MeetingMembership.namedAddresses(write.occurrence).map(JSONValue.string)))
            }
        }
        guard !positions.isEmpty else { return steps }
        let facts = MeetingMembership.factsColumns(
            meeting: "m.id", owner: "$2::bigint", named: "(SELECT lower(value) FROM jsonb_array_elements_text(r.v -> 1))")
        var result = steps
        for row in try await tx.rows(
            .numbered(
                """
                SELECT r.n, \(facts)
                FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(v, n) JOIN meetings m ON m.identity = r.v ->> 0
                """,
                [rows.text, ownerID]))
        {
            let (ordinal, others, vouched) = try row.decode((Int64, Bool, Bool).self)
            let position = Int(ordinal) - 1
            guard !MeetingMembership.Facts(hasOthersCopies: others, isVouched: vouched).joins, positions.indices.contains(position),
                case .write(var write) = result[positions[position]]
            else { continue }
            write.occurrence.meetingIdentity = MeetingMembership.ownIdentity(write.occurrence.meetingIdentity, ownerID: ownerID)
            result[positions[position]] = .write(write)
        }
        return result
    }

    /// Sets the touched meetings' titles and times from their chosen copies.
    func refreshMeetings(_ meetingIDs: Set<Int64>) async throws {
        guard !meetingIDs.isEmpty else { return }
        try await tx.execute(
            .numbered(
                MeetingMembership.refreshFromChosenCopies(ids: "(SELECT unnest($1::bigint[]))", now: "$2::bigint"),
                [Array(meetingIDs), now]))
    }

    /// Inserts the meetings of `occurrences` that are new and returns the ids of all by
    /// identity; their titles and times are set from their chosen copies once the events are
    /// written.
    func upsertMeetings(_ occurrences: [EventOccurrence]) async throws -> [String: Int64] {
        guard !occurrences.isEmpty else { return [:] }
        var latest: [String: EventOccurrence] = [:]
        for occurrence in occurrences { latest[occurrence.meetingIdentity] = occurrence }
        var rows = JSONArrayWriter(reservingCapacity: latest.count * 128)
        for occurrence in latest.values {
            rows.appendArray { row in
                row.append(occurrence.meetingIdentity)
                row.append(occurrence.title)
                row.append(PostgresCatalog.milliseconds(occurrence.start))
                row.append(PostgresCatalog.milliseconds(occurrence.end))
            }
        }
        var ids: [String: Int64] = [:]
        for row in try await tx.rows(
            """
            INSERT INTO meetings (identity, title, starts_at, ends_at, created_at, updated_at)
            SELECT r->>0, r->>1, (r->>2)::bigint, (r->>3)::bigint, \(now), \(now) FROM jsonb_array_elements(\(rows.text)::jsonb) AS r
            ON CONFLICT (identity) DO UPDATE SET identity = excluded.identity
            RETURNING id, identity
            """)
        {
            let (id, identity) = try row.decode((Int64, String).self)
            ids[identity] = id
        }
        return ids
    }

    /// Replaces the written events' attendees. The organizer is not among them: the events row
    /// holds them.
    func replaceAttendees(_ writes: [Write], eventIDs: [String: Int64]) async throws {
        let replaced = writes.compactMap { $0.previous == nil ? nil : eventIDs[$0.occurrence.remoteID] }
        if !replaced.isEmpty {
            try await tx.execute("DELETE FROM event_attendees WHERE event_id = ANY(\(replaced)::bigint[])")
        }
        var rows = JSONArrayWriter()
        var any = false
        for write in writes {
            guard let eventID = eventIDs[write.occurrence.remoteID] else { continue }
            let organizer = write.occurrence.organizer?.email
            for attendee in write.occurrence.attendees where !attendee.email.isEmpty && attendee.email != organizer {
                any = true
                rows.appendArray { row in
                    row.append(eventID)
                    row.append(attendee.email)
                    row.append(attendee.name)
                    row.append(attendee.role.rawValue)
                    row.append(attendee.response.rawValue)
                }
            }
        }
        guard any else { return }
        try await tx.execute(
            """
            INSERT INTO event_attendees (event_id, email, name, role, response)
            SELECT (r->>0)::bigint, r->>1, r->>2, r->>3, r->>4 FROM jsonb_array_elements(\(rows.text)::jsonb) AS r
            ON CONFLICT (event_id, email) DO NOTHING
            """)
    }

    /// Records the reported resources with their ETags (when the change set keeps them) and
    /// drops those the source deleted or, for a complete change set, no longer lists.
    func updateResources(_ changes: CalendarChangeSet, calendarID: Int64) async throws {
        if changes.keepsResourceTags && !changes.updatedResources.isEmpty {
            var latest: [String: String?] = [:]
            for update in changes.updatedResources { latest[update.resource] = .some(update.etag) }
            var pairs = JSONArrayWriter(reservingCapacity: latest.count * 96)
            for (resource, etag) in latest {
                pairs.appendArray { pair in
                    pair.append(resource)
                    pair.append(etag)
                }
            }
            try await tx.execute(
                """
                INSERT INTO calendar_resources (calendar_id, resource, etag, updated_at)
                SELECT \(calendarID), r->>0, r->>1, \(now) FROM jsonb_array_elements(\(pairs.text)::jsonb) AS r
                ON CONFLICT (calendar_id, resource) DO UPDATE SET etag = excluded.etag, updated_at = excluded.updated_at
                WHERE calendar_resources.etag IS DISTINCT FROM excluded.etag
                """)
        }
        if !changes.removedResources.isEmpty {
            try await tx.execute(
                "DELETE FROM calendar_resources WHERE calendar_id = \(calendarID) AND resource = ANY(\(changes.removedResources)::text[])")
        }
        if changes.scope == .complete {
            let listed = changes.updatedResources.map(\.resource)
            try await tx.execute(
                "DELETE FROM calendar_resources WHERE calendar_id = \(calendarID) AND NOT (resource = ANY(\(listed)::text[]))")
        }
    }

    /// Re-indexes the touched meetings for `steno search`: title, and the name and email of the
    /// organizer and every attendee of each meeting's live events, folded into lexemes by
    /// ``SearchLexemes`` as SQLite's FTS5 folds them.
    func refreshSearch(meetingIDs: Set<Int64>) async throws {
        guard !meetingIDs.isEmpty else { return }
        var rows = JSONArrayWriter(reservingCapacity: meetingIDs.count * 128)
        for row in try await tx.rows(
            """
            SELECT m.id, m.title,
                coalesce((SELECT string_agg(
                     coalesce(coalesce(e.organizer_name, '') || ' ' || e.organizer_email || ' ', '')
                         || coalesce((SELECT string_agg(coalesce(a.name, '') || ' ' || a.email, ' ') FROM event_attendees a
                                      WHERE a.event_id = e.id), ''),
                     ' ')
                 FROM events e WHERE e.meeting_id = m.id AND e.deleted_at IS NULL), '')
            FROM meetings m WHERE m.id = ANY(\(Array(meetingIDs))::bigint[])
            """)
        {
            let (id, title, attendees) = try row.decode((Int64, String, String).self)
            rows.appendArray { row in
                row.append(id)
                row.append(title)
                row.append(attendees)
                row.append(JSONValue.array(SearchLexemes.lexemes([title, attendees]).map(JSONValue.string)))
            }
        }
        try await tx.execute(
            """
            INSERT INTO meeting_search (meeting_id, title, attendees, lexemes)
            SELECT (r->>0)::bigint, r->>1, r->>2, array_to_tsvector(ARRAY(SELECT jsonb_array_elements_text(r->3)))
            FROM jsonb_array_elements(\(rows.text)::jsonb) AS r
            ON CONFLICT (meeting_id) DO UPDATE SET title = excluded.title, attendees = excluded.attendees, lexemes = excluded.lexemes
            """)
    }
}

/// Puts an events row's values into a JSON row of a set-based write.
struct JSONEventColumns: EventColumnSink {
    var row: JSONArrayWriter

    mutating func add(_ text: String?) { row.append(text) }
    mutating func add(_ integer: Int64?) { row.append(integer.map(JSONValue.int) ?? .null) }
    mutating func add(_ flag: Bool) { row.append(JSONValue.bool(flag)) }
}
