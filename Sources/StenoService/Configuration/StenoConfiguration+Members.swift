import Foundation
import StenoCatalog
import StenoJSON

/// What one member may own (`[members]`); admins are not limited. With public calendar URLs
/// each account is a fetch the daemon makes every sync interval, and each device and pairing
/// code a row anyone holding it can use: without limits one member could make the daemon
/// fetch hundreds of URLs every few minutes.
public struct MemberQuotas: Sendable, Hashable {
    /// Calendar accounts (ICS, CalDAV, Graph; devices' own not counted) a member may have
    /// (`max_calendar_accounts`, default 20).
    public var calendarAccounts = 20
    /// Devices not revoked (`max_devices`, default 10).
    public var devices = 10
    /// Pairing codes neither used nor expired at once (`max_pairing_codes`, default 3).
    public var pairingCodes = 3

    /// The defaults: 20 accounts, 10 devices, 3 live pairing codes.
    public init() {}

    /// The limit of calendar accounts, as the store applies it.
    public var calendarAccountLimit: MemberLimit {
        MemberLimit(.calendarAccounts, maximum: calendarAccounts, setting: "[members] max_calendar_accounts")
    }

    /// The limit of devices, as the store applies it.
    public var deviceLimit: MemberLimit { MemberLimit(.devices, maximum: devices, setting: "[members] max_devices") }

    /// The limit of live pairing codes, as the store applies it.
    public var pairingCodeLimit: MemberLimit {
        MemberLimit(.pairingCodes, maximum: pairingCodes, setting: "[members] max_pairing_codes")
    }
}

extension StenoConfiguration {
    static let membersKeys: Set<String> = ["max_calendar_accounts", "max_devices", "max_pairing_codes"]

    /// Reads `[members]`.
    mutating func applyMembers(file settings: [String: JSONValue], path: String) throws {
        guard let table = try Self.section("members", in: settings, known: Self.membersKeys, path: path) else { return }
        func count(_ key: String) throws -> Int? {
            guard let value = table[key] else { return nil }
            guard let number = value.intValue, (0...100_000).contains(number) else {
                throw ConfigurationError("\(path): members.\(key) must be an integer from 0 (none) to 100000")
            }
            return Int(number)
        }
        if let value = try count("max_calendar_accounts") { members.calendarAccounts = value }
        if let value = try count("max_devices") { members.devices = value }
        if let value = try count("max_pairing_codes") { members.pairingCodes = value }
    }
}
