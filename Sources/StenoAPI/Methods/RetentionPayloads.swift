import Foundation
import StenoCore

extension StenoMethods {
    /// What the next retention run (`[retention]`) removes: admins see every recording, members
    /// their own.
    public static let retentionPreview = RPCMethodDescriptor<NoParams, RetentionPreview>("retention.preview")
    /// Places a legal hold on recordings (admins): held, a recording is neither deleted nor
    /// removed by retention or the purge of missing recordings, until the hold is lifted.
    public static let recordingsHold = RPCMethodDescriptor<RecordingHoldParams, RecordingHoldResult>("recordings.hold")
    /// Lifts legal holds (admins).
    public static let recordingsUnhold = RPCMethodDescriptor<RecordingIDsParams, RecordingUnholdResult>("recordings.unhold")
    /// Every legal hold (admins).
    public static let recordingsHolds = RPCMethodDescriptor<NoParams, RecordingHoldsResult>("recordings.holds")
}

/// The result of `retention.preview`.
public struct RetentionPreview: Codable, Sendable, Hashable {
    /// When the next run starts (`[retention] expire_cron`); nil when every rule keeps
    /// recordings forever, so no run is scheduled.
    public var runsAt: Date?
    /// The rules in force, as the configuration file writes them.
    public var rules: [String]
    /// Where expired recordings' files are moved; nil: they are removed from the inbox.
    public var archiveDirectory: String?
    /// What that run removes (as things stand), ascending by id.
    public var recordings: [RetentionPreviewItem]
    /// Recordings under a legal hold, which no run removes.
    public var held: Int

    public init(runsAt: Date?, rules: [String], archiveDirectory: String?, recordings: [RetentionPreviewItem], held: Int) {
        self.runsAt = runsAt
        self.rules = rules
        self.archiveDirectory = archiveDirectory
        self.recordings = recordings
        self.held = held
    }
}

/// A recording the next retention run removes, and the rule that expires it.
public struct RetentionPreviewItem: Codable, Sendable, Hashable {
    public var id: Int64
    public var title: String?
    public var owner: String?
    /// When it was made, else catalogued: where its age counts from.
    public var agedFrom: Date
    /// The rule it has outlived, as the configuration file writes it.
    public var rule: String

    public init(id: Int64, title: String?, owner: String?, agedFrom: Date, rule: String) {
        self.id = id
        self.title = title
        self.owner = owner
        self.agedFrom = agedFrom
        self.rule = rule
    }
}

/// Params of `recordings.hold`.
public struct RecordingHoldParams: Codable, Sendable, Hashable {
    /// The recordings to hold.
    public var ids: [Int64]
    /// Why (a case, a request), shown with the hold.
    public var reason: String?

    public init(ids: [Int64], reason: String? = nil) {
        self.ids = ids
        self.reason = reason
    }
}

/// Params naming recordings by id (`recordings.unhold`).
public struct RecordingIDsParams: Codable, Sendable, Hashable {
    public var ids: [Int64]

    public init(ids: [Int64]) { self.ids = ids }
}

/// The result of `recordings.hold`.
public struct RecordingHoldResult: Codable, Sendable, Hashable {
    /// The recordings held now (a hold already there is kept as it was), ascending.
    public var held: [Int64]
    /// The ids given that name no recording, ascending.
    public var unknown: [Int64]

    public init(held: [Int64], unknown: [Int64]) {
        self.held = held
        self.unknown = unknown
    }
}

/// The result of `recordings.unhold`.
public struct RecordingUnholdResult: Codable, Sendable, Hashable {
    /// The recordings whose holds were lifted; the others were not held.
    public var released: [Int64]

    public init(released: [Int64]) { self.released = released }
}

/// The result of `recordings.holds`.
public struct RecordingHoldsResult: Codable, Sendable, Hashable {
    /// Ascending by recording.
    public var holds: [RecordingHold]

    public init(holds: [RecordingHold]) { self.holds = holds }
}
