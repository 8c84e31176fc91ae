import Foundation
import StenoJSON
import StenoCore

/// The job worker pool's settings (`[jobs]`).
public struct JobSettings: Sendable, Hashable {
    /// Jobs run at the same time (`workers`, default 2).
    public var workers: Int = 2
    /// Seconds a claim lasts without a heartbeat (`lease_seconds`, default 60); a crashed
    /// daemon's jobs run again after at most this long.
    public var leaseSeconds: Int = 60
    /// Attempts of a job before it is `dead`, unless its producer says otherwise
    /// (`max_attempts`, default 5).
    public var maxAttempts: Int = JobDraft.defaultMaxAttempts

    /// The defaults: 2 workers, 60 s leases, 5 attempts.
    public init() {}
}

/// One `[[schedule]]` entry: enqueue a job of `kind` at every fire time of `cron`.
public struct ScheduleSettings: Sendable, Hashable {
    /// The job kind.
    public var kind: String
    /// The cron expression.
    public var cron: CronSchedule
    /// The job payload as JSON text (from the entry's `payload` table; `{}` when absent).
    public var payload: String
    /// The zone the cron fields are read in (`time_zone`, an IANA name; the system's by default).
    public var timeZone: TimeZone

    /// An entry; `payload` is JSON text.
    public init(kind: String, cron: CronSchedule, payload: String = "{}", timeZone: TimeZone = .current) {
        self.kind = kind
        self.cron = cron
        self.payload = payload
        self.timeZone = timeZone
    }
}

extension StenoConfiguration {
    static let jobsKeys: Set<String> = ["workers", "lease_seconds", "max_attempts"]
    static let scheduleKeys: Set<String> = ["kind", "cron", "payload", "time_zone"]

    /// Reads `[jobs]` and `[[schedule]]` from a parsed TOML file, with the same strictness as
    /// the other settings: unknown keys and wrong types are errors naming the setting.
    mutating func applyJobs(file settings: [String: JSONValue], path: String) throws {
        if let table = try Self.section("jobs", in: settings, known: Self.jobsKeys, path: path) {
            func integer(_ key: String, in range: ClosedRange<Int64>) throws -> Int? {
                guard let value = table[key] else { return nil }
                guard let number = value.intValue, range.contains(number) else {
                    throw ConfigurationError(
                        "\(path): jobs.\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)")
                }
                return Int(number)
            }
            if let value = try integer("workers", in: 1...256) { jobs.workers = value }
            if let value = try integer("lease_seconds", in: 1...86_400) { jobs.leaseSeconds = value }
            if let value = try integer("max_attempts", in: 1...1000) { jobs.maxAttempts = value }
        }
        if let scheduleValue = settings["schedule"] {
            guard case .array(let entries) = scheduleValue else {
                throw ConfigurationError("\(path): schedule must be an array of tables ([[schedule]])")
            }
            var seenKinds = Set<String>()
            for (index, entry) in entries.enumerated() {
                let parsed = try Self.schedule(entry, number: index + 1, path: path)
                // The unique key is `schedule:<kind>`: two entries of one kind would block each other.
                guard seenKinds.insert(parsed.kind).inserted else {
                    throw ConfigurationError("\(path): [[schedule]] #\(index + 1): a schedule for kind \"\(parsed.kind)\" exists already")
                }
                schedules.append(parsed)
            }
        }
    }

    static func schedule(_ entry: JSONValue, number: Int, path: String) throws -> ScheduleSettings {
        let place = "\(path): [[schedule]] #\(number)"
        guard case .object(let table) = entry else { throw ConfigurationError("\(place) must be a table") }
        if let unknown = table.keys.sorted().first(where: { !scheduleKeys.contains($0) }) {
            throw ConfigurationError(
                "\(place): unknown setting \"\(unknown)\" (known: \(scheduleKeys.sorted().joined(separator: ", ")))")
        }
        guard let kind = table["kind"]?.stringValue, !kind.isEmpty else {
            throw ConfigurationError("\(place): kind must be a non-empty string, e.g. kind = \"system.noop\"")
        }
        guard let expression = table["cron"]?.stringValue else {
            throw ConfigurationError("\(place): cron must be a string, e.g. cron = \"*/5 * * * *\"")
        }
        let cron: CronSchedule
        do {
            cron = try CronSchedule(expression)
        } catch {
            throw ConfigurationError("\(place): \(error)")
        }
        var payload = "{}"
        if let value = table["payload"] {
            guard case .object = value else { throw ConfigurationError("\(place): payload must be a table") }
            payload = value.serializedString
        }
        var timeZone = TimeZone.current
        if let value = table["time_zone"] {
            guard let name = value.stringValue, let zone = TimeZone(identifier: name) else {
                throw ConfigurationError("\(place): time_zone must be an IANA zone name such as \"Europe/Berlin\"")
            }
            timeZone = zone
        }
        return ScheduleSettings(kind: kind, cron: cron, payload: payload, timeZone: timeZone)
    }
}
