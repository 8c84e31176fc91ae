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
    /// How long recordings are kept (`keep_days`, `[retention.owners]`, `[retention.folders]`);
    /// forever by default.
    public var policy = RetentionPolicy()
    /// Where the retention run moves expired recordings' files instead of removing them
    /// (`archive_dir`, an absolute folder outside the inbox); nil removes them.
    public var archiveDirectory: String?
    /// When the retention run removes what has outlived the policy (`expire_cron`, default
    /// 03:45, in `[links] time_zone`); it runs only when some rule removes anything.
    public var expireCron = "45 3 * * *"
    /// Days the access log keeps its entries (`audit_days`, default 365), pruned nightly at
    /// `purge_cron`.
    public var auditDays = 365

    public init() {}
}

extension StenoConfiguration {
    static let retentionKeys: Set<String> = [
        "purge_missing_after_days", "purge_cron", "keep_days", "owners", "folders", "archive_dir", "expire_cron", "audit_days",
    ]

    /// Reads `[retention]`, `[retention.owners]` and `[retention.folders]`.
    mutating func applyRetention(file settings: [String: JSONValue], path: String) throws {
        guard let table = try Self.section("retention", in: settings, known: Self.retentionKeys, path: path) else { return }
        if let value = table["purge_missing_after_days"] {
            guard let days = value.intValue, (1...36_500).contains(days) else {
                throw ConfigurationError("\(path): retention.purge_missing_after_days must be a whole number of days from 1 to 36500")
            }
            retention.purgeMissingAfterDays = Int(days)
        }
        if let value = table["purge_cron"] { retention.purgeCron = try Self.cron(value, named: "retention.purge_cron", path: path) }
        if let value = table["expire_cron"] { retention.expireCron = try Self.cron(value, named: "retention.expire_cron", path: path) }
        if let value = table["audit_days"] {
            guard let days = value.intValue, (1...36_500).contains(days) else {
                throw ConfigurationError("\(path): retention.audit_days must be a whole number of days from 1 to 36500")
            }
            retention.auditDays = Int(days)
        }
        if let value = table["keep_days"] {
            let days = try Self.keepDays(value, named: "retention.keep_days", path: path)
            retention.policy.keepDays = days == 0 ? nil : days
        }
        for (owner, value) in try Self.subtable("owners", of: table, path: path) {
            do throws(UserValidation.Problem) {
                try UserValidation.checkName(owner)
            } catch {
                throw ConfigurationError("\(path): [retention.owners]: \(error.message)")
            }
            retention.policy.owners[owner.lowercased()] = try Self.keepDays(value, named: "retention.owners.\(owner)", path: path)
        }
        for (folder, value) in try Self.subtable("folders", of: table, path: path) {
            guard let key = RetentionPolicy.folderKey(folder) else {
                throw ConfigurationError("\(path): [retention.folders] \"\(folder)\" is not a folder of the inbox: give it relative to the inbox, like \"legal/\"")
            }
            retention.policy.folders[key] = try Self.keepDays(value, named: "retention.folders.\"\(folder)\"", path: path)
        }
        if let value = table["archive_dir"] {
            guard let folder = value.stringValue, folder.hasPrefix("/") else {
                throw ConfigurationError("\(path): retention.archive_dir must be an absolute folder, like \"/var/lib/steno/archive\"")
            }
            retention.archiveDirectory = URL(fileURLWithPath: folder).standardizedFileURL.path
        }
    }

    /// Days a rule keeps recordings: 0 (forever) to 36500.
    private static func keepDays(_ value: JSONValue, named name: String, path: String) throws -> Int {
        guard let days = value.intValue, (0...36_500).contains(days) else {
            throw ConfigurationError("\(path): \(name) must be a whole number of days from 0 (forever) to 36500")
        }
        return Int(days)
    }

    /// The `[retention.NAME]` table, empty when absent.
    private static func subtable(_ name: String, of table: [String: JSONValue], path: String) throws -> [(String, JSONValue)] {
        guard let value = table[name] else { return [] }
        guard case .object(let entries) = value else { throw ConfigurationError("\(path): [retention.\(name)] must be a table") }
        return entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Rejects an archive the watcher would read again.
    func validateRetention() throws {
        guard let archive = retention.archiveDirectory else { return }
        if archive == inboxDirectory || archive.hasPrefix(inboxDirectory + "/") || inboxDirectory.hasPrefix(archive + "/") {
            throw ConfigurationError(
                "retention.archive_dir \(archive) overlaps the inbox \(inboxDirectory): the watcher would catalogue archived files again; choose a folder outside it")
        }
    }
}
