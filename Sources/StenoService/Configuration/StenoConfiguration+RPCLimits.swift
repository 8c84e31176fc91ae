import StenoJSON

extension StenoConfiguration {
    /// The bounds of the `[rpc]` settings that keep one caller from exhausting the daemon.
    static var rpcLimitBounds: [(key: String, range: ClosedRange<Int>, keyPath: WritableKeyPath<RPCSettings, Int>)] {
        [
            ("max_running_per_uid", 1...1024, \.maxRunningPerUID),
            ("max_connections_per_uid", 1...100_000, \.maxConnectionsPerUID),
            ("idle_timeout_seconds", 1...86_400, \.idleTimeoutSeconds),
            ("unmapped_idle_timeout_seconds", 1...86_400, \.unmappedIdleTimeoutSeconds),
        ]
    }

    /// Reads the per-caller limits of `[rpc]`, each an integer within its bounds.
    mutating func applyRPCLimits(_ settings: [String: JSONValue], path: String) throws {
        for (key, range, keyPath) in Self.rpcLimitBounds {
            guard let value = settings[key] else { continue }
            guard let number = value.intValue, number >= range.lowerBound, number <= range.upperBound else {
                throw ConfigurationError("\(path): rpc.\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            rpc[keyPath: keyPath] = Int(number)
        }
    }
}
