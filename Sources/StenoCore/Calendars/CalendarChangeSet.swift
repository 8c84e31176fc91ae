import Foundation

/// What one sync learned about one calendar, applied to the mirror in one transaction
/// together with the sync state it brings, so a state is never saved without its data.
///
/// Providers speak in *resources*: a CalDAV object or ICS file holds a whole series (many
/// occurrences); a Graph event is a resource of one occurrence. Updating a resource replaces
/// all of its occurrences: those no longer reported are tombstoned.
public struct CalendarChangeSet: Sendable, Hashable {
    /// The calendar, created or updated by remote id.
    public var calendar: CalendarDescriptor
    /// Whether `resources` is everything the calendar holds (a full sync) or only what changed.
    public var scope: Scope
    /// Resources created or changed, each with its occurrences in the mirrored window.
    public var updatedResources: [ResourceUpdate]
    /// Resources deleted at the source: all their occurrences are tombstoned.
    public var removedResources: [String]
    /// The calendar's sync state after these changes (JSON); nil keeps the stored one.
    public var syncState: String?
    /// The span the provider expanded the updated resources in (its mirrored window). An
    /// updated resource's mirrored occurrences starting outside it are kept as they are: the
    /// provider did not look there, and a meeting recorded a year ago must not vanish because
    /// time moved the window past it. Nil: the resources' occurrences are all listed.
    public var window: DateInterval?
    /// Whether the mirror keeps each updated resource's ETag for the next sync to compare
    /// (CalDAV, ICS). Graph asks only for changes since its delta token and never compares
    /// them: keeping them was a write per event and nothing else.
    public var keepsResourceTags: Bool
    /// Whether the change set is a history fetch's (``window`` is then a span outside the
    /// mirrored window): the events it leaves in that span are marked as mirrored for history.
    public var fromHistory: Bool

    /// How much of the calendar a change set covers.
    public enum Scope: Sendable, Hashable {
        /// Only the listed changes; everything else is as before.
        case incremental
        /// The complete contents: any mirrored resource not listed is tombstoned.
        case complete
    }

    public init(
        calendar: CalendarDescriptor, scope: Scope, updatedResources: [ResourceUpdate] = [], removedResources: [String] = [],
        syncState: String? = nil, window: DateInterval? = nil, keepsResourceTags: Bool = true, fromHistory: Bool = false
    ) {
        self.calendar = calendar
        self.scope = scope
        self.updatedResources = updatedResources
        self.removedResources = removedResources
        self.syncState = syncState
        self.window = window
        self.keepsResourceTags = keepsResourceTags
        self.fromHistory = fromHistory
    }
}

/// A calendar as a provider describes it.
public struct CalendarDescriptor: Sendable, Hashable {
    public var remoteID: String
    public var name: String
    public var color: String?
    public var timeZone: String?

    public init(remoteID: String, name: String, color: String? = nil, timeZone: String? = nil) {
        self.remoteID = remoteID
        self.name = name
        self.color = color
        self.timeZone = timeZone
    }
}

/// A created or changed resource and the occurrences it now holds.
public struct ResourceUpdate: Sendable, Hashable {
    /// The CalDAV href, ICS file/UID key, or Graph event id.
    public var resource: String
    /// ETag or change key, kept to compare on the next sync.
    public var etag: String?
    public var occurrences: [EventOccurrence]

    public init(resource: String, etag: String? = nil, occurrences: [EventOccurrence]) {
        self.resource = resource
        self.etag = etag
        self.occurrences = occurrences
    }
}

/// What applying a change set did to the mirror.
public struct MirrorChangeSummary: Sendable, Hashable {
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var deleted = 0
    /// Meetings whose events were added, changed or removed: the linker and revalidation look at these.
    public var touchedMeetingIDs: Set<Int64> = []

    public init() {}

    /// Adds another summary's counts to this one.
    public mutating func add(_ other: MirrorChangeSummary) {
        inserted += other.inserted
        updated += other.updated
        unchanged += other.unchanged
        deleted += other.deleted
        touchedMeetingIDs.formUnion(other.touchedMeetingIDs)
    }
}
