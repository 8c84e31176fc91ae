import Foundation
import StenoCore

/// Devices (phones running the Steno agent), their tokens and pairing codes, the events they
/// push, and the change feeds they read.
public protocol DeviceStore: Sendable {
    /// Registers a device for `ownerID` with its own `device` calendar account. Throws
    /// `.conflict` when the owner has a device of that label, `.failedPrecondition` when the
    /// owner is a member who has `limit`'s maximum of devices.
    func addDevice(ownerID: Int64, label: String, timeZone: String, tokenHash: Data, limit: MemberLimit?, now: Date) async throws -> DeviceRecord
    /// Devices ordered by id after `afterID` (of `ownerID`; nil: everyone's).
    func devices(ownerID: Int64?, afterID: Int64?, limit: Int) async throws -> [DeviceRecord]
    func device(id: Int64) async throws -> DeviceRecord
    /// The device whose token hashes to `tokenHash`, unless revoked.
    func device(tokenHash: Data) async throws -> DeviceRecord?
    /// Forgets the device's token (its events stay); its account stops being synced.
    func revokeDevice(id: Int64, now: Date) async throws -> DeviceRecord
    /// Notes a request the device made.
    func recordDeviceContact(id: Int64, address: String?, now: Date) async throws
    /// Stores a pairing code's hash, valid until `expiresAt` for one use. Throws
    /// `.failedPrecondition` when the owner is a member who has `limit`'s maximum of live codes.
    func addPairing(
        codeHash: Data, ownerID: Int64, label: String?, timeZone: String?, expiresAt: Date, limit: MemberLimit?, now: Date
    ) async throws
    /// Trades an unused, unexpired pairing code for a new device with token `tokenHash`, in
    /// one transaction (a code works once). Nil when the code is unknown, used or expired;
    /// `.failedPrecondition` (the code kept) when its owner is a member who has `deviceLimit`'s
    /// maximum of devices.
    func redeemPairing(
        codeHash: Data, tokenHash: Data, label: String, timeZone: String, deviceLimit: MemberLimit?, now: Date
    ) async throws -> DeviceRecord?
    /// Applies a device's pushed events to the mirror of `accountID` in one transaction: one
    /// outcome per write, in order, and the meetings touched.
    func applyDeviceEvents(_ writes: [DeviceEventWrite], accountID: Int64, now: Date) async throws -> DeviceWriteReport
    /// Events in the order they changed, after `query.since`.
    func eventChanges(_ query: EventChangesQuery) async throws -> EventChangesPage
}

extension DeviceStore {
    /// Registers a device whatever its owner has.
    public func addDevice(ownerID: Int64, label: String, timeZone: String, tokenHash: Data, now: Date) async throws -> DeviceRecord {
        try await addDevice(ownerID: ownerID, label: label, timeZone: timeZone, tokenHash: tokenHash, limit: nil, now: now)
    }

    /// Stores a pairing code whatever its owner has.
    public func addPairing(codeHash: Data, ownerID: Int64, label: String?, timeZone: String?, expiresAt: Date, now: Date) async throws {
        try await addPairing(codeHash: codeHash, ownerID: ownerID, label: label, timeZone: timeZone, expiresAt: expiresAt, limit: nil, now: now)
    }

    /// Trades a pairing code for a device whatever its owner has.
    public func redeemPairing(codeHash: Data, tokenHash: Data, label: String, timeZone: String, now: Date) async throws -> DeviceRecord? {
        try await redeemPairing(codeHash: codeHash, tokenHash: tokenHash, label: label, timeZone: timeZone, deviceLimit: nil, now: now)
    }
}

/// A device as stored.
public struct DeviceRecord: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var accountID: Int64
    public var ownerID: Int64
    public var ownerName: String
    public var label: String
    public var timeZone: String
    public var createdAt: Date
    public var lastContactAt: Date?
    public var lastAddress: String?
    public var revokedAt: Date?
    /// Calendars and live events mirrored from the device.
    public var calendars: Int
    public var events: Int

    public init(
        id: Int64, accountID: Int64, ownerID: Int64, ownerName: String, label: String, timeZone: String, createdAt: Date,
        lastContactAt: Date? = nil, lastAddress: String? = nil, revokedAt: Date? = nil, calendars: Int = 0, events: Int = 0
    ) {
        self.id = id
        self.accountID = accountID
        self.ownerID = ownerID
        self.ownerName = ownerName
        self.label = label
        self.timeZone = timeZone
        self.createdAt = createdAt
        self.lastContactAt = lastContactAt
        self.lastAddress = lastAddress
        self.revokedAt = revokedAt
        self.calendars = calendars
        self.events = events
    }
}

/// What applying a device's writes did.
public struct DeviceWriteReport: Sendable, Hashable {
    /// One per write, in order.
    public var outcomes: [DeviceWriteOutcome]
    public var changes: MirrorChangeSummary

    public init(outcomes: [DeviceWriteOutcome], changes: MirrorChangeSummary) {
        self.outcomes = outcomes
        self.changes = changes
    }
}

/// Which events a change feed reads.
public struct EventChangesQuery: Sendable, Hashable {
    /// Changes after this value of the change sequence (0: everything).
    public var since: Int64
    public var limit: Int
    public var includeDeleted: Bool
    public var scope: Scope

    public enum Scope: Sendable, Hashable {
        /// The events of one account (a device's own).
        case account(Int64)
        /// Every event `ownerID` may see from any provider, plus the requests addressed to the
        /// device account `deviceAccountID` (other devices' requests are theirs).
        case visibleTo(ownerID: Int64, deviceAccountID: Int64)
    }

    public init(since: Int64, limit: Int, includeDeleted: Bool, scope: Scope) {
        self.since = since
        self.limit = limit
        self.includeDeleted = includeDeleted
        self.scope = scope
    }
}

/// One page of a change feed.
public struct EventChangesPage: Sendable, Hashable {
    public var events: [EventChange]
    /// The value to send as the next `since`: the last row's when the page is full, else the
    /// last change committed when the page was read.
    public var serverTime: Int64
    public var hasMore: Bool

    public init(events: [EventChange], serverTime: Int64, hasMore: Bool) {
        self.events = events
        self.serverTime = serverTime
        self.hasMore = hasMore
    }
}

/// An events row as a change feed reports it.
public struct EventChange: Sendable, Hashable {
    /// The events row.
    public var id: Int64
    public var provider: CalendarProviderKind
    public var accountID: Int64
    /// The device whose account holds the row (device accounts only).
    public var deviceID: Int64?
    public var calendarRemoteID: String
    public var calendarName: String
    public var meetingID: Int64?
    /// The stored `externalUpdatedAt` of a device event (its ETag column).
    public var etag: String?
    public var changeSequence: Int64
    public var updatedAt: Date
    public var deletedAt: Date?
    public var occurrence: EventOccurrence

    public init(
        id: Int64, provider: CalendarProviderKind, accountID: Int64, deviceID: Int64?, calendarRemoteID: String, calendarName: String,
        meetingID: Int64?, etag: String?, changeSequence: Int64, updatedAt: Date, deletedAt: Date?, occurrence: EventOccurrence
    ) {
        self.id = id
        self.provider = provider
        self.accountID = accountID
        self.deviceID = deviceID
        self.calendarRemoteID = calendarRemoteID
        self.calendarName = calendarName
        self.meetingID = meetingID
        self.etag = etag
        self.changeSequence = changeSequence
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.occurrence = occurrence
    }

    /// A row Steno asked the device to create, not yet created.
    public var isRequest: Bool { occurrence.remoteID.hasPrefix(DeviceEventKeys.requestPrefix) }
}
