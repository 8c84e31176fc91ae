import Foundation

extension StenoMethods {
    // MARK: devices.*

    /// Registers a device (an iPhone running the Steno agent) for the caller: creates its
    /// `device` calendar account and returns its token, shown this once.
    public static let devicesAdd = RPCMethodDescriptor<DeviceAddParams, DeviceAddResult>("devices.add")
    /// Devices with their last contact (members: their own; admins: all).
    public static let devicesList = RPCMethodDescriptor<PageParams, Page<DeviceSummary>>("devices.list")
    /// Revokes a device's token (its owner or an admin); its mirrored events stay.
    public static let devicesRevoke = RPCMethodDescriptor<DeviceIDParams, DeviceSummary>("devices.revoke")
    /// A one-time pairing code (10 minutes, one use) the device trades for a token at
    /// `POST /sync/devices/register`.
    public static let devicesPair = RPCMethodDescriptor<DeviceAddParams, DevicePairing>("devices.pair")
}

/// Params of `devices.add` and `devices.pair`.
public struct DeviceAddParams: Codable, Sendable, Hashable {
    /// A name for the device, e.g. `my-iphone` (pairing: the device may send one instead).
    public var label: String?
    /// The IANA zone of events the device sends without one; the daemon's by default.
    public var timeZone: String?

    public init(label: String? = nil, timeZone: String? = nil) {
        self.label = label
        self.timeZone = timeZone
    }
}

/// Params naming one device.
public struct DeviceIDParams: Codable, Sendable, Hashable {
    public var id: Int64

    public init(id: Int64) { self.id = id }
}

/// A registered device.
public struct DeviceSummary: Codable, Sendable, Hashable {
    public var id: Int64
    public var label: String
    /// The owner's user name.
    public var owner: String
    /// The `device` calendar account its events are mirrored in.
    public var account: Int64
    /// The zone of events sent without one.
    public var timeZone: String
    public var createdAt: Date
    /// The last request the device made with its token; nil before the first.
    public var lastContactAt: Date?
    /// The address of that request (the proxy's, behind a reverse proxy).
    public var lastAddress: String?
    /// When the token was revoked; nil while it works.
    public var revokedAt: Date?
    /// Calendars the device has sent events of.
    public var calendars: Int
    /// Mirrored events that are not deleted.
    public var events: Int

    public init(
        id: Int64, label: String, owner: String, account: Int64, timeZone: String, createdAt: Date, lastContactAt: Date? = nil,
        lastAddress: String? = nil, revokedAt: Date? = nil, calendars: Int = 0, events: Int = 0
    ) {
        self.id = id
        self.label = label
        self.owner = owner
        self.account = account
        self.timeZone = timeZone
        self.createdAt = createdAt
        self.lastContactAt = lastContactAt
        self.lastAddress = lastAddress
        self.revokedAt = revokedAt
        self.calendars = calendars
        self.events = events
    }
}

/// Result of `devices.add`.
public struct DeviceAddResult: Codable, Sendable, Hashable {
    public var device: DeviceSummary
    /// The device's token for `Authorization: Device <token>`: shown once, only its hash is kept.
    public var token: String

    public init(device: DeviceSummary, token: String) {
        self.device = device
        self.token = token
    }
}

/// Result of `devices.pair`.
public struct DevicePairing: Codable, Sendable, Hashable {
    /// The code to type on the device, e.g. `K7QF-2MXD`.
    public var code: String
    public var expiresAt: Date
    /// The label and zone the device will get (it may send its own when these are nil).
    public var label: String?
    public var timeZone: String?

    public init(code: String, expiresAt: Date, label: String? = nil, timeZone: String? = nil) {
        self.code = code
        self.expiresAt = expiresAt
        self.label = label
        self.timeZone = timeZone
    }
}
