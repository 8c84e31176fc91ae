import Synchronization

/// The meetings and recordings each member may see, held until the catalog changes.
///
/// Built from the sets of `CatalogSQL+Visibility.swift` (a few thousand ids through three
/// joins), a member's set cost more than the page it filtered, and every page of one listing
/// built it again. Held here, a member's listings and searches read only the part of the set
/// their range and position select.
///
/// Never stale: each entry carries the `Stamp` of the catalog state it was read from, and is
/// served only to a read of that same state. SQLite's stamp is the generation its
/// `ChangeObserver` bumps on every commit that changed a row (read before the read that
/// computes the sets began, so a racing commit makes the next call compute again); PostgreSQL's
/// is the snapshot of the reading transaction, equal only when no write committed between.
package final class VisibleSetCache<Stamp: Equatable & Sendable>: Sendable {
    /// A member's visible meetings in the order of an ascending listing, and visible
    /// recordings by id; nil for a set not read yet at this stamp.
    package struct Sets: Sendable {
        package var meetings: [MeetingKey]?
        package var recordings: [Int64]?
        /// The visible meetings' ids in ascending order, for searches, which test every hit
        /// against the whole set (`recordings` is in that order already).
        package var meetingIDs: [Int64]?
        /// The held meetings by address, indexed against `meetings` (for `--with`).
        package var people: HeldMeetingPeople?
        /// The held meetings' titles, in the order of `meetings` (for `--title`).
        package var titles: HeldMeetingTitles?
        /// Which of `meetings` have a recording (for `--recorded` and `--unrecorded`).
        package var recorded: HeldMeetingRecordings?
        /// The visible recordings in the order of the last ordered listing (other than by id).
        package var recordingOrder: HeldRecordingOrder?

        package init(
            meetings: [MeetingKey]? = nil, recordings: [Int64]? = nil, meetingIDs: [Int64]? = nil,
            people: HeldMeetingPeople? = nil, titles: HeldMeetingTitles? = nil, recorded: HeldMeetingRecordings? = nil,
            recordingOrder: HeldRecordingOrder? = nil
        ) {
            self.recordingOrder = recordingOrder
            self.meetings = meetings
            self.recordings = recordings
            self.meetingIDs = meetingIDs
            self.people = people
            self.titles = titles
            self.recorded = recorded
        }
    }

    private struct Entry {
        var stamp: Stamp
        var sets: Sets
    }

    /// Members held at once, and 8-byte words held in all (16 bytes per visible meeting, 8 per
    /// recording and 16 more for its order, and what their people, titles and recorded flags take; 16 MB): all dropped when either would be passed (the next listing of each
    /// member reads their sets again). A set larger than the words alone is used, never held.
    package static var capacity: Int { 64 }
    package static var wordLimit: Int { 2_000_000 }

    private struct Held {
        var entries: [Int64: Entry] = [:]
        var words = 0
    }

    private let held = Mutex(Held())

    package init() {}

    /// The sets of `user` read at `stamp`, if any.
    package func sets(of user: Int64, at stamp: Stamp) -> Sets? {
        held.withLock { held in
            guard let entry = held.entries[user], entry.stamp == stamp else { return nil }
            return entry.sets
        }
    }

    /// Keeps `sets` of `user`, read at `stamp`, with the other set already held for that stamp.
    package func store(_ sets: Sets, of user: Int64, at stamp: Stamp) {
        held.withLock { held in
            var merged = sets
            if let entry = held.entries[user], entry.stamp == stamp {
                merged.meetings = merged.meetings ?? entry.sets.meetings
                merged.recordings = merged.recordings ?? entry.sets.recordings
                merged.meetingIDs = merged.meetingIDs ?? entry.sets.meetingIDs
                merged.people = merged.people ?? entry.sets.people
                merged.titles = merged.titles ?? entry.sets.titles
                merged.recorded = merged.recorded ?? entry.sets.recorded
                merged.recordingOrder = merged.recordingOrder ?? entry.sets.recordingOrder
            }
            if let replaced = held.entries.removeValue(forKey: user) { held.words -= Self.words(of: replaced.sets) }
            let words = Self.words(of: merged)
            guard words <= Self.wordLimit else { return }
            if held.entries.count >= Self.capacity || held.words + words > Self.wordLimit { held = Held() }
            held.entries[user] = Entry(stamp: stamp, sets: merged)
            held.words += words
        }
    }

    /// One of the details held with `user`'s meetings `keys` at `stamp` (their people, titles or
    /// recorded flags, which point into `keys` by position): as held, or made now by `make` and
    /// held with `keys`.
    package func detail<Detail>(
        _ detail: WritableKeyPath<Sets, Detail?>, of user: Int64, at stamp: Stamp, keys: [MeetingKey], make: () throws -> Detail
    ) rethrows -> Detail {
        if let held = sets(of: user, at: stamp)?[keyPath: detail] { return held }
        let made = try make()
        hold(made, at: detail, of: user, at: stamp, keys: keys)
        return made
    }

    /// ``detail(_:of:at:keys:make:)`` made by an asynchronous `make` (a server's round trip).
    package func detail<Detail>(
        _ detail: WritableKeyPath<Sets, Detail?>, of user: Int64, at stamp: Stamp, keys: [MeetingKey],
        make: () async throws -> Detail
    ) async rethrows -> Detail {
        if let held = sets(of: user, at: stamp)?[keyPath: detail] { return held }
        let made = try await make()
        hold(made, at: detail, of: user, at: stamp, keys: keys)
        return made
    }

    private func hold<Detail>(_ made: Detail, at detail: WritableKeyPath<Sets, Detail?>, of user: Int64, at stamp: Stamp, keys: [MeetingKey]) {
        var sets = Sets(meetings: keys)
        sets[keyPath: detail] = made
        store(sets, of: user, at: stamp)
    }

    private static func words(of sets: Sets) -> Int {
        return 2 * (sets.meetings?.count ?? 0) + (sets.recordings?.count ?? 0) + (sets.meetingIDs?.count ?? 0) + (sets.people?.words ?? 0)
            + (sets.titles?.words ?? 0) + (sets.recorded?.words ?? 0) + (sets.recordingOrder?.words ?? 0)
    }
}
