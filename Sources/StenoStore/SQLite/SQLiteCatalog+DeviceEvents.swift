import Foundation
import GRDB
import StenoCore

/// A device's pushed events, applied to its account's mirror.
extension SQLiteCatalog {
    public func applyDeviceEvents(_ writes: [DeviceEventWrite], accountID: Int64, now: Date) async throws -> DeviceWriteReport {
        try await writer.write { db in
            var plan = DeviceWritePlan(db: db, accountID: accountID)
            try plan.prepare(writes)
            return try plan.apply(now: Self.milliseconds(now))
        }
    }
}

/// Turns a device's writes into one change set per calendar, inside the write transaction.
///
/// The stored rows decide: a write older than the stored event (by the device's own
/// modification time, kept as the row's ETag) is stale; an event moved to another calendar
/// leaves the old one; an event that fulfils a Steno request, or that Steno created, keeps
/// that meeting whatever identifier the device gives it.
struct DeviceWritePlan {
    let db: Database
    let accountID: Int64
    /// Per write: stale, or the remote ids whose change decides between ok and unchanged.
    private var decided: [DeviceWriteOutcome?] = []
    private var watched: [[String]] = []
    /// Per calendar remote id, in first-seen order.
    private var sets: [String: PendingSet] = [:]
    private var order: [String] = []
    private var calendars: [String: CalendarDescriptor] = [:]

    struct PendingSet {
        var descriptor: CalendarDescriptor
        var updates: [ResourceUpdate] = []
        var updateIndex: [String: Int] = [:]
        var removed: [String] = []
    }

    /// A stored row of one of the account's events.
    struct StoredRow {
        var remoteID: String
        var calendarRemoteID: String
        var etag: String?
        var isDeleted: Bool
        var meetingIdentity: String?
    }

    init(db: Database, accountID: Int64) {
        self.db = db
        self.accountID = accountID
    }

    mutating func prepare(_ writes: [DeviceEventWrite]) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM calendar_accounts WHERE id = ?", arguments: [accountID]) == true else {
            throw StoreError.notFound(entity: "calendar account", reference: String(accountID))
        }
        for row in try Row.fetchAll(db, sql: "SELECT remote_id, name, color, time_zone FROM calendars WHERE account_id = ?", arguments: [accountID]) {
            calendars[row["remote_id"]] = CalendarDescriptor(remoteID: row["remote_id"], name: row["name"], color: row["color"], timeZone: row["time_zone"])
        }
        for write in writes { try prepare(write) }
    }

    private mutating func prepare(_ write: DeviceEventWrite) throws {
        let allOccurrences: Bool
        if case .delete(let all) = write.change { allOccurrences = all } else { allOccurrences = false }
        let stored = try rows(remoteID: write.remoteID, withOccurrences: allOccurrences)
        if let stamp = write.externalUpdatedAt, stored.contains(where: { ($0.etag.flatMap { Int64($0) } ?? .min) > stamp }) {
            decided.append(.stale)
            watched.append([])
            return
        }
        switch write.change {
        case .delete:
            let live = stored.filter { !$0.isDeleted }
            for row in live { removeLater(row.remoteID, from: row.calendarRemoteID) }
            decided.append(nil)
            watched.append(live.map(\.remoteID))
        case .upsert(var calendar, var occurrence, let request):
            let current = stored.first { $0.remoteID == write.remoteID }
            if let request, let fulfilled = try requestRow(id: request) {
                occurrence.meetingIdentity = fulfilled.meetingIdentity ?? occurrence.meetingIdentity
                removeLater(fulfilled.remoteID, from: fulfilled.calendarRemoteID)
            } else if let identity = current?.meetingIdentity, DeviceEventKeys.isStenoIdentity(identity) {
                occurrence.meetingIdentity = identity
            }
            if let current, current.calendarRemoteID != calendar.remoteID, !current.isDeleted {
                removeLater(current.remoteID, from: current.calendarRemoteID)
            }
            if calendar.name.isEmpty { calendar.name = calendars[calendar.remoteID]?.name ?? calendar.remoteID }
            calendars[calendar.remoteID] = calendar
            var set = sets[calendar.remoteID] ?? startSet(calendar.remoteID)
            set.descriptor = calendar
            let update = ResourceUpdate(resource: write.remoteID, etag: write.externalUpdatedAt.map { String($0) }, occurrences: [occurrence])
            if let index = set.updateIndex[write.remoteID] {
                set.updates[index] = update  // the later write of the same event wins
            } else {
                set.updateIndex[write.remoteID] = set.updates.count
                set.updates.append(update)
            }
            sets[calendar.remoteID] = set
            decided.append(nil)
            watched.append([write.remoteID])
        }
    }

    mutating func apply(now: Int64) throws -> DeviceWriteReport {
        var summary = MirrorChangeSummary()
        var changed: Set<String> = []
        for remoteID in order {
            guard let set = sets[remoteID] else { continue }
            var writer = MirrorWriter(db: db, now: now)
            summary.add(
                try writer.apply(
                    CalendarChangeSet(
                        calendar: set.descriptor, scope: .incremental, updatedResources: set.updates, removedResources: set.removed),
                    accountID: accountID))
            changed.formUnion(writer.changedResources)
        }
        let outcomes = zip(decided, watched).map { decision, ids in
            decision ?? (ids.contains(where: changed.contains) ? .ok : .unchanged)
        }
        return DeviceWriteReport(outcomes: outcomes, changes: summary)
    }

    private mutating func startSet(_ calendarRemoteID: String) -> PendingSet {
        order.append(calendarRemoteID)
        return PendingSet(descriptor: calendars[calendarRemoteID] ?? CalendarDescriptor(remoteID: calendarRemoteID, name: calendarRemoteID))
    }

    private mutating func removeLater(_ remoteID: String, from calendarRemoteID: String) {
        var set = sets[calendarRemoteID] ?? startSet(calendarRemoteID)
        set.removed.append(remoteID)
        sets[calendarRemoteID] = set
    }

    /// The account's rows of one event (with `withOccurrences`, also every `remoteID#…` row).
    private func rows(remoteID: String, withOccurrences: Bool) throws -> [StoredRow] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT e.remote_id, c.remote_id AS calendar_remote_id, e.etag, e.deleted_at IS NOT NULL AS is_deleted,
                        m.identity AS meeting_identity
                    FROM calendars c JOIN events e ON e.calendar_id = c.id LEFT JOIN meetings m ON m.id = e.meeting_id
                    WHERE c.account_id = ?1 AND (e.remote_id = ?2 OR (?3 AND e.remote_id > ?2 || '#' AND e.remote_id < ?2 || '$'))
                    """),
            arguments: [accountID, remoteID, withOccurrences]
        ).map(Self.storedRow)
    }

    /// A live request row of this account, by its events row id.
    private func requestRow(id: Int64) throws -> StoredRow? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT e.remote_id, c.remote_id AS calendar_remote_id, e.etag, e.deleted_at IS NOT NULL AS is_deleted,
                    m.identity AS meeting_identity
                FROM events e JOIN calendars c ON c.id = e.calendar_id LEFT JOIN meetings m ON m.id = e.meeting_id
                WHERE e.id = ? AND c.account_id = ? AND e.deleted_at IS NULL AND e.remote_id LIKE '\(DeviceEventKeys.requestPrefix)%'
                """,
            arguments: [id, accountID]
        ).map(Self.storedRow)
    }

    static func storedRow(_ row: Row) -> StoredRow {
        StoredRow(
            remoteID: row["remote_id"], calendarRemoteID: row["calendar_remote_id"], etag: row["etag"], isDeleted: row["is_deleted"],
            meetingIdentity: row["meeting_identity"])
    }
}
