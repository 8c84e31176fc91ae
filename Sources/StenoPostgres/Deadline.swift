/// Runs `operation`, giving up after `limit`: the pool waits for a connection as long as the
/// caller does, and a caller should hear that the server does not answer rather than wait for ever.
///
/// - Throws: `onTimeout()` when the time ran out first (the operation is cancelled), or the
///   operation's own error.
func withDeadline<Value: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value, onTimeout: @escaping @Sendable () -> any Error
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw onTimeout() }
        return value
    }
}
