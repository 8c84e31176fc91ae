import StenoJSON

extension StenoConfiguration {
    static let watcherKeys: Set<String> = ["settle_seconds", "rescan_minutes", "polling", "poll_seconds", "lease_seconds"]

    /// Reads `[watcher]`: settle interval, rescan period, polling mode for NFS/SMB, the watch lease.
    mutating func applyWatcher(file settings: [String: JSONValue], path: String) throws {
        guard let table = try Self.section("watcher", in: settings, known: Self.watcherKeys, path: path) else { return }
        func seconds(_ key: String, in range: ClosedRange<Double>) throws -> Duration? {
            guard let value = table[key] else { return nil }
            guard let number = value.doubleValue, range.contains(number) else {
                throw ConfigurationError("\(path): watcher.\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return .milliseconds(Int64(number * 1000))
        }
        if let value = try seconds("settle_seconds", in: 0...3600) { watcher.settleInterval = value }
        if let value = try seconds("rescan_minutes", in: 0.1...10_080) { watcher.rescanInterval = value * 60 }
        if let value = try seconds("poll_seconds", in: 0.1...3600) { watcher.pollInterval = value }
        if let value = try seconds("lease_seconds", in: 3...3600) { watcher.leaseDuration = value }
        if let value = table["polling"] {
            guard let flag = value.boolValue else { throw ConfigurationError("\(path): watcher.polling must be true or false") }
            watcher.pollingOnly = flag
        }
    }
}
