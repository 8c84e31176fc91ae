import Foundation
import StenoJSON
import StenoCore

/// Linking settings (`[links]`).
public struct LinkSettings: Sendable, Hashable {
    /// When the nightly revalidation runs (`revalidate_cron`, default 03:00).
    public var revalidateCron = "0 3 * * *"
    /// The zone `revalidate_cron` is read in (`time_zone`, IANA; the system's by default).
    public var timeZone: TimeZone = .current
    /// Scoring: tolerance around a recording, threshold, ambiguity margin.
    public var policy = LinkPolicy()

    /// The defaults: revalidation at 03:00 local, 15 min tolerance, threshold 0.3, margin 0.05.
    public init() {}
}

extension StenoConfiguration {
    static let linkKeys: Set<String> = ["revalidate_cron", "time_zone", "tolerance_minutes", "threshold", "ambiguity_margin"]

    /// A setting's 5-field cron text, checked.
    static func cron(_ value: JSONValue, named name: String, path: String) throws -> String {
        guard let text = value.stringValue else { throw ConfigurationError("\(path): \(name) must be a string") }
        do {
            _ = try CronSchedule(text)
        } catch {
            throw ConfigurationError("\(path): \(name): \(error)")
        }
        return text
    }

    /// Reads `[links]`.
    mutating func applyLinks(file settings: [String: JSONValue], path: String) throws {
        guard let table = try Self.section("links", in: settings, known: Self.linkKeys, path: path) else { return }
        if let value = table["revalidate_cron"] { links.revalidateCron = try Self.cron(value, named: "links.revalidate_cron", path: path) }
        if let value = table["time_zone"] {
            guard let name = value.stringValue, let zone = TimeZone(identifier: name) else {
                throw ConfigurationError("\(path): links.time_zone must be an IANA zone name such as \"Europe/Berlin\"")
            }
            links.timeZone = zone
        }
        func number(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
            guard let value = table[key] else { return nil }
            guard let number = value.doubleValue, range.contains(number) else {
                throw ConfigurationError("\(path): links.\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        if let minutes = try number("tolerance_minutes", in: 0...240) { links.policy.tolerance = minutes * 60 }
        if let threshold = try number("threshold", in: 0...2) { links.policy.threshold = threshold }
        if let margin = try number("ambiguity_margin", in: 0...1) { links.policy.ambiguityMargin = margin }
    }
}
