import Foundation
import StenoJSON
import StenoCalendar

/// Calendar mirroring settings (`[calendars]`).
public struct CalendarSettings: Sendable, Hashable {
    /// Days before today mirrored (`window_past_days`, default 180).
    public var windowPastDays = 180
    /// Days after today mirrored (`window_future_days`, default 365).
    public var windowFutureDays = 365
    /// Minutes between syncs of an account (`sync_interval_minutes`, default 5).
    public var syncInterval: Duration = .seconds(300)
    /// The key sealing account secrets (`secret_key_file`); by default `secret.key` in the data
    /// folder, or the systemd credential `steno-secret-key` when one is passed.
    public var secretKeyFile: String?
    /// The zone of floating times and all-day dates in calendars that name none (`time_zone`,
    /// IANA); nil uses `[links] time_zone`, itself the system's zone by default.
    public var timeZone: TimeZone?
    /// Internal hosts and networks members' accounts may reach (`member_networks`: host names,
    /// addresses, CIDR networks); by default none, only public addresses.
    public var memberNetworks: [String] = []

    /// The defaults: 180 days back, 365 ahead, a sync every 5 minutes.
    public init() {}
}

extension StenoConfiguration {
    static let calendarKeys: Set<String> = [
        "window_past_days", "window_future_days", "sync_interval_minutes", "secret_key_file", "time_zone", "member_networks",
    ]

    /// Reads `[calendars]`.
    mutating func applyCalendars(file settings: [String: JSONValue], path: String) throws {
        guard let table = try Self.section("calendars", in: settings, known: Self.calendarKeys, path: path) else { return }
        func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
            guard let value = table[key] else { return nil }
            guard let number = value.doubleValue, range.contains(number) else {
                throw ConfigurationError("\(path): calendars.\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        if let days = try number("window_past_days", in: 0...3650) { calendars.windowPastDays = Int(days) }
        if let days = try number("window_future_days", in: 1...3650) { calendars.windowFutureDays = Int(days) }
        if let minutes = try number("sync_interval_minutes", in: 0.1...10_080) {
            calendars.syncInterval = .milliseconds(Int64(minutes * 60_000))
        }
        if let file = table["secret_key_file"] {
            guard let text = file.stringValue, !text.isEmpty else {
                throw ConfigurationError("\(path): calendars.secret_key_file must be a path")
            }
            try Self.checkKeyFolder(of: text, path: path)
            calendars.secretKeyFile = text
        }
        if let value = table["time_zone"] {
            guard let name = value.stringValue, let zone = TimeZone(identifier: name) else {
                throw ConfigurationError("\(path): calendars.time_zone must be an IANA zone name such as \"Europe/Berlin\"")
            }
            calendars.timeZone = zone
        }
        if let value = table["member_networks"] {
            let entries = value.arrayValue?.compactMap(\.stringValue) ?? []
            guard entries.count == value.arrayValue?.count, entries.count <= 256, entries.allSatisfy(HTTPDestinationPolicy.isValidEntry)
            else {
                throw ConfigurationError(
                    "\(path): calendars.member_networks must be a list of at most 256 host names, addresses or networks such as \"10.0.0.0/8\"")
            }
            calendars.memberNetworks = entries
        }
    }

    /// A key file must be named absolutely, in a folder that exists: the daemon would otherwise
    /// create folders at a mistyped path and a new key in them, and lose the old accounts' secrets.
    static func checkKeyFolder(of keyFile: String, path: String) throws {
        guard keyFile.hasPrefix("/") else {
            throw ConfigurationError("\(path): calendars.secret_key_file must be an absolute path, got \"\(keyFile)\"")
        }
        let folder = (keyFile as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw ConfigurationError(
                "\(path): calendars.secret_key_file \(keyFile): the folder \(folder) does not exist; create it (mode 0700, owned by the daemon's user) or fix the path")
        }
    }

    /// The zone of floating times in calendars that name none: `[calendars] time_zone`, else
    /// `[links] time_zone` (the zone the team's meetings are read in), else the system's.
    public var calendarTimeZone: TimeZone { calendars.timeZone ?? links.timeZone }

    /// The key file in effect: the setting, else a systemd credential, else `secret.key` in the data folder.
    public func secretKeyPath(environment: [String: String]) -> String {
        if let file = calendars.secretKeyFile { return file }
        if let credentials = environment["CREDENTIALS_DIRECTORY"], !credentials.isEmpty {
            let path = credentials + "/steno-secret-key"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return dataDirectory + "/secret.key"
    }
}

extension StenoConfiguration {
    /// The `[name]` table of a parsed file, nil when absent.
    ///
    /// - Throws: when it is not a table or holds a key not in `known` (typos are errors).
    static func section(_ name: String, in settings: [String: JSONValue], known: Set<String>, path: String) throws -> [String: JSONValue]? {
        guard let value = settings[name] else { return nil }
        guard case .object(let table) = value else { throw ConfigurationError("\(path): [\(name)] must be a table") }
        if let unknown = table.keys.sorted().first(where: { !known.contains($0) }) {
            throw ConfigurationError(
                "\(path): unknown setting \"\(name).\(unknown)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
        return table
    }
}
