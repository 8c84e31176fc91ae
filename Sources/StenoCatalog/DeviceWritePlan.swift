import Foundation
import StenoCore

extension DeviceEventWrite {
    /// Whether the write deletes every occurrence of its event (whose rows are read with it).
    package var deletesAllOccurrences: Bool {
        if case .delete(let all) = change { return all }
        return false
    }

    /// The events row id of the Steno request this write fulfils, if any.
    package var fulfilledRequest: Int64? {
        if case .upsert(_, _, let request) = change { return request }
        return nil
    }
}

/// Turns a device's writes into one change set per calendar (both backends).
///
/// The stored rows decide: a write older than the stored event (by the device's own
/// modification time, kept as the row's ETag) is stale; an event moved to another calendar
/// leaves the old one; an event that fulfils a Steno request, or that Steno created, keeps
/// that meeting whatever identifier the device gives it.
package struct DeviceWritePlan {
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
    package struct StoredRow {
        var remoteID: String
        var calendarRemoteID: String
        var etag: String?
        var isDeleted: Bool
        var meetingIdentity: String?

        package init(remoteID: String, calendarRemoteID: String, etag: String?, isDeleted: Bool, meetingIdentity: String?) {
            self.remoteID = remoteID
            self.calendarRemoteID = calendarRemoteID
            self.etag = etag
            self.isDeleted = isDeleted
            self.meetingIdentity = meetingIdentity
        }
    }

    /// For an account whose calendars are `calendars`.
    package init(calendars: [CalendarDescriptor]) {
        for calendar in calendars { self.calendars[calendar.remoteID] = calendar }
    }

    /// Decides one write, in order, given the account's `stored` rows of its event (with every
    /// occurrence when it ``DeviceEventWrite/deletesAllOccurrences``) and the live request row
    /// it fulfils, if any. Nothing is written until the change sets are applied, so the rows
    /// may be read before any write is decided.
    package mutating func prepare(_ write: DeviceEventWrite, stored: [StoredRow], request fulfilledRow: StoredRow?) {
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
            if request != nil, let fulfilled = fulfilledRow {
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

    /// One incremental change set per calendar, in the order the writes named them.
    package var changeSets: [CalendarChangeSet] {
        order.compactMap { remoteID in
            sets[remoteID].map { set in
                CalendarChangeSet(calendar: set.descriptor, scope: .incremental, updatedResources: set.updates, removedResources: set.removed)
            }
        }
    }

    /// The outcome of each write once the change sets are applied: `changedResources` are the
    /// resources whose rows the writers inserted, changed or tombstoned.
    package func report(changedResources: Set<String>, changes: MirrorChangeSummary) -> DeviceWriteReport {
        let outcomes = zip(decided, watched).map { decision, ids in
            decision ?? (ids.contains(where: changedResources.contains) ? .ok : .unchanged)
        }
        return DeviceWriteReport(outcomes: outcomes, changes: changes)
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
}
