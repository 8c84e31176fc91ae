import Foundation
import StenoCore
import StenoJSON

/// What the catalog forgets by itself (`[retention]`).
public struct RetentionSettings: Sendable, Hashable {
    /// Recordings missing (their files gone from the inbox) for this many days are deleted by
    /// a nightly purge (`purge_missing_after_days`); never when nil, the default.
    public var purgeMissingAfterDays: Int?
    /// When the nightly purge runs (`purge_cron`, default 03:30, in `[links] time_zone`).
    public var purgeCron = "30 3 * * *"

    public init() {}
}

extension StenoConfiguration {
    static let retentionKeys: Set<String> = ["purge_missing_after_days", "purge_cron"]

    /// Reads `[retention]`.
    mutating func applyRetention(file settings: [String: JSONValue], path: String) throws {
        guard let table = try Self.section("retention", in: settings, known: Self.retentionKeys, path: path) else { return }
        if let value = table["purge_missing_after_days"] {
            guard let days = value.intValue, (1...36_500).contains(days) else {
                throw ConfigurationError("\(path): retention.purge_missing_after_days must be a whole number of days from 1 to 36500")
            }
            retention.purgeMissingAfterDays = Int(days)
        }
        if let value = table["purge_cron"] { retention.purgeCron = try Self.cron(value, named: "retention.purge_cron", path: path) }
    }
}
