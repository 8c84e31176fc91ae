/// How many of something a member may own: calendar accounts, devices, live pairing codes.
/// Admins are not limited. The store counts and inserts in one transaction, with the owner's
/// row locked where writers run side by side, so requests sent at once cannot pass the limit.
public struct MemberLimit: Sendable, Hashable {
    /// What is counted.
    public enum Kind: String, Sendable, Hashable {
        /// Calendar accounts other than devices' own.
        case calendarAccounts = "calendar accounts"
        /// Devices not revoked.
        case devices
        /// Pairing codes neither used nor expired.
        case pairingCodes = "live pairing codes"
    }

    public var kind: Kind
    /// The most a member may have.
    public var maximum: Int
    /// The setting that sets it, named in the refusal (e.g. `[members] max_devices`).
    public var setting: String

    public init(_ kind: Kind, maximum: Int, setting: String) {
        self.kind = kind
        self.maximum = maximum
        self.setting = setting
    }

    /// Whether a member who has `count` may add one more.
    public func admits(_ count: Int) -> Bool { count < maximum }

    /// The refusal of one more for `owner`, who has `count`.
    public func refusal(owner: String, count: Int) -> StoreError {
        let remedy: String
        switch kind {
        case .calendarAccounts: remedy = "remove one (steno accounts remove ID)"
        case .devices: remedy = "revoke one (steno devices revoke ID)"
        case .pairingCodes: remedy = "use one or wait until one expires"
        }
        // The singular drops the plural's last letter: "device", "calendar account", "live pairing code".
        let noun = count == 1 ? String(kind.rawValue.dropLast()) : kind.rawValue
        return .failedPrecondition(
            "\(owner) has \(count) \(noun), the most a member may have (\(setting) = \(maximum)): \(remedy), or ask an admin to raise the limit")
    }
}
