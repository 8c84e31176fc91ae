import Foundation

// The JSON bodies of the device agent endpoints.

/// What the server did with one upserted event.
public struct UpsertResult: Codable, Sendable, Hashable {
    /// The event it is for.
    public var externalId: String
    /// The occurrence, when the server echoes it.
    public var occurrenceDate: Int64?
    /// `ok` (stored), `unchanged`, `stale` (older than the stored one) or `error`.
    public var status: UpsertStatus
    /// For `error`: the field at fault, e.g. `startTime`.
    public var field: String?
    /// For `error`: why, e.g. `"25:00" is not a time HH:mm`.
    public var error: String?

    /// A result from its fields (tests; results normally come from the server).
    public init(externalId: String, occurrenceDate: Int64? = nil, status: UpsertStatus, field: String? = nil, error: String? = nil) {
        self.externalId = externalId
        self.occurrenceDate = occurrenceDate
        self.status = status
        self.field = field
        self.error = error
    }

    /// Whether the server holds the event as sent (stored now, or already).
    public var isAccepted: Bool { status == .ok || status == .unchanged }

    /// The error in a sentence: `A4: startTime: "25:00" is not a time HH:mm`.
    public var errorDescription: String? {
        guard status == .error else { return nil }
        let field = self.field.map { "\($0): " } ?? ""
        return "\(externalId): \(field)\(error ?? "refused")"
    }
}

/// The status of one upserted event. Values the library does not know are kept as they came.
public struct UpsertStatus: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The status as the server spells it.
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Stored (created, changed or deleted).
    public static let ok = UpsertStatus(rawValue: "ok")
    /// The server already held exactly this; nothing was written.
    public static let unchanged = UpsertStatus(rawValue: "unchanged")
    /// Older than the version the server holds (`externalUpdatedAt`); ignored.
    public static let stale = UpsertStatus(rawValue: "stale")
    /// Refused; `field` and `error` say why.
    public static let error = UpsertStatus(rawValue: "error")

    /// The status as the server spells it.
    public var description: String { rawValue }
}

/// The answer of `POST /sync/apple/events/upsert`, or of several joined by
/// ``StenoAgentClient/upsert(_:)``.
public struct UpsertResponse: Codable, Sendable, Hashable {
    /// One result per event, in the order sent.
    public var results: [UpsertResult]
    /// The server's clock of the (last) answer, epoch milliseconds.
    public var serverTime: Int64?

    /// An answer from its results.
    public init(results: [UpsertResult], serverTime: Int64?) {
        self.results = results
        self.serverTime = serverTime
    }

    /// How many results have each status.
    public var counts: [UpsertStatus: Int] {
        results.reduce(into: [:]) { counts, result in counts[result.status, default: 0] += 1 }
    }

    /// The results that are errors.
    public var errors: [UpsertResult] { results.filter { $0.status == .error } }
}

/// The answer of `POST /sync/devices/register`.
public struct DeviceRegistration: Codable, Sendable, Hashable {
    /// The token for `Authorization: Device <token>`; the server keeps only its hash.
    public var deviceToken: String
    /// The device as registered.
    public var device: RegisteredDevice

    /// A registration from its fields (tests, or one restored from the Keychain).
    public init(deviceToken: String, device: RegisteredDevice) {
        self.deviceToken = deviceToken
        self.device = device
    }
}

extension DeviceRegistration: CustomStringConvertible, CustomReflectable {
    /// The device; the token is left out so that logging a registration never leaks it.
    public var description: String { "DeviceRegistration(device: \(device.id), token: <redacted>)" }

    /// What `dump` and debuggers show: the token redacted.
    public var customMirror: Mirror { Mirror(self, children: ["deviceToken": "<redacted>", "device": device]) }
}

/// The device as the server registered it.
public struct RegisteredDevice: Codable, Sendable, Hashable {
    /// The device's id: feed rows with `provider == "apple"` and this `device` are its own events.
    public var id: Int64
    /// Its name, e.g. `my-iphone`.
    public var label: String?
    /// The zone of events sent without one.
    public var timeZone: String?
    /// The `device` calendar account its events are mirrored in.
    public var account: Int64?

    /// A device from its fields.
    public init(id: Int64, label: String? = nil, timeZone: String? = nil, account: Int64? = nil) {
        self.id = id
        self.label = label
        self.timeZone = timeZone
        self.account = account
    }
}

/// A changes feed read to its end.
public struct ChangeFeed: Sendable, Hashable {
    /// The rows of every page, in the server's order.
    public var events: [ServerEvent]
    /// The last page's `serverTime`: the `since` of the next read.
    public var serverTime: Int64

    /// A feed from its rows and the cursor after them.
    public init(events: [ServerEvent], serverTime: Int64) {
        self.events = events
        self.serverTime = serverTime
    }
}

/// One page of a changes feed on the wire.
struct ChangePage: Decodable {
    var events: [ServerEvent]
    var serverTime: Int64
    var hasMore: Bool?
}

struct RegisterRequest: Encodable {
    var pairingCode: String
    var label: String?
    var timeZone: String?
}

struct UpsertRequest: Encodable {
    var events: [DeviceEvent]
}
