import Foundation

/// How long recordings are kept (`[retention] keep_days`, `[retention.owners]`,
/// `[retention.folders]`), and which of them have outlived it.
///
/// A recording's age counts from when it was made, else from when it was catalogued. The most
/// specific rule decides how long it is kept: a folder holding one of its files (the longest
/// prefix; across several files the longest keep), else its owner's, else `keep_days`. Zero days
/// is forever, so a folder or an owner can be exempted from a shorter rule.
public struct RetentionPolicy: Sendable, Hashable {
    /// Days every recording is kept; nil keeps them forever.
    public var keepDays: Int?
    /// Days by owner's user name, lowercased as names compare (0: forever).
    public var owners: [String: Int]
    /// Days by inbox folder, each a relative path ending in `/` (0: forever).
    public var folders: [String: Int]

    /// Keeps everything forever.
    public init(keepDays: Int? = nil, owners: [String: Int] = [:], folders: [String: Int] = [:]) {
        self.keepDays = keepDays
        self.owners = owners
        self.folders = folders
    }

    /// The rules, as the configuration file writes them.
    public var settings: [String] {
        [keepDays.map { RetentionRule(scope: .everyone, days: $0).setting }].compactMap { $0 }
            + owners.sorted { $0.key < $1.key }.map { RetentionRule(scope: .owner($0.key), days: $0.value == 0 ? nil : $0.value).setting }
            + folders.sorted { $0.key < $1.key }.map { RetentionRule(scope: .folder($0.key), days: $0.value == 0 ? nil : $0.value).setting }
    }

    /// Whether some rule ever removes a recording.
    public var removesAnything: Bool { shortestKeep != nil }

    /// The fewest days any rule keeps a recording; nil when every rule keeps them forever.
    var shortestKeep: Int? {
        ([keepDays].compactMap { $0 } + owners.values + folders.values).filter { $0 > 0 }.min()
    }

    /// The age no younger recording can have expired at `now`: what a run need look at.
    public func oldestKept(now: Date) -> Date? {
        shortestKeep.map { now.addingTimeInterval(-Double($0) * 86_400) }
    }

    /// The rule that keeps a recording of `owner` with files at `paths`.
    public func rule(owner: String?, paths: [String]) -> RetentionRule {
        // The deepest folder rule of each path; across paths, the one keeping longest.
        let folderRules = Set(paths.compactMap { path in folders.keys.filter { path.hasPrefix($0) }.max { $0.count < $1.count } })
            .sorted().compactMap { folder in folders[folder].map { (folder: folder, days: $0) } }
        if let longest = folderRules.max(by: { Self.keepsLonger($1.days, than: $0.days) }) {
            return RetentionRule(scope: .folder(longest.folder), days: longest.days == 0 ? nil : longest.days)
        }
        if let owner = owner?.lowercased(), let days = owners[owner] {
            return RetentionRule(scope: .owner(owner), days: days == 0 ? nil : days)
        }
        return RetentionRule(scope: .everyone, days: keepDays.flatMap { $0 == 0 ? nil : $0 })
    }

    /// Whether `candidate` has outlived its rule at `now`, and by which rule.
    public func expiry(of candidate: RetentionCandidate, now: Date) -> RetentionExpiry? {
        let rule = rule(owner: candidate.ownerName, paths: candidate.paths)
        guard let days = rule.days, candidate.agedFrom < now.addingTimeInterval(-Double(days) * 86_400) else { return nil }
        return RetentionExpiry(candidate: candidate, rule: rule)
    }

    /// Whether keeping `days` (0: forever) keeps longer than keeping `other` days.
    private static func keepsLonger(_ days: Int, than other: Int) -> Bool {
        if days == other { return false }
        if days == 0 { return true }
        if other == 0 { return false }
        return days > other
    }

    /// A folder rule's key as the policy matches it: relative to the inbox, ending in `/`;
    /// nil when it is not a folder of the inbox (absolute, empty, or climbing out with `..`).
    public static func folderKey(_ folder: String) -> String? {
        var key = folder
        while key.hasPrefix("./") { key.removeFirst(2) }
        guard !key.isEmpty, !key.hasPrefix("/") else { return nil }
        if !key.hasSuffix("/") { key += "/" }
        let parts = key.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        return key
    }
}

/// The rule that keeps a recording, and for how long.
public struct RetentionRule: Sendable, Hashable, Codable {
    /// Where a rule comes from.
    public enum Scope: Sendable, Hashable, Codable {
        /// `[retention] keep_days`.
        case everyone
        /// `[retention.owners] NAME`.
        case owner(String)
        /// `[retention.folders] "FOLDER/"`.
        case folder(String)
    }

    public var scope: Scope
    /// Days kept; nil is forever.
    public var days: Int?

    public init(scope: Scope, days: Int?) {
        self.scope = scope
        self.days = days
    }

    /// The setting, as the configuration file writes it.
    public var setting: String {
        let value = days.map(String.init) ?? "0"
        switch scope {
        case .everyone: return "keep_days = \(value)"
        case .owner(let name): return "[retention.owners] \(name) = \(value)"
        case .folder(let folder): return "[retention.folders] \"\(folder)\" = \(value)"
        }
    }
}

/// A recording as the retention run weighs it.
public struct RetentionCandidate: Sendable, Hashable {
    public var recordingID: Int64
    public var title: String?
    public var ownerName: String?
    /// When it was made, else when it was catalogued.
    public var agedFrom: Date
    /// Every path it was seen at, relative to the inbox.
    public var paths: [String]

    public init(recordingID: Int64, title: String? = nil, ownerName: String?, agedFrom: Date, paths: [String]) {
        self.recordingID = recordingID
        self.title = title
        self.ownerName = ownerName
        self.agedFrom = agedFrom
        self.paths = paths
    }
}

/// A recording that has outlived the rule keeping it.
public struct RetentionExpiry: Sendable, Hashable {
    public var candidate: RetentionCandidate
    public var rule: RetentionRule

    public init(candidate: RetentionCandidate, rule: RetentionRule) {
        self.candidate = candidate
        self.rule = rule
    }

    public var recordingID: Int64 { candidate.recordingID }
}
