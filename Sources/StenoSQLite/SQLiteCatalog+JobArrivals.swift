import StenoCatalog

extension SQLiteCatalog {
    /// Only this process writes an embedded catalog, and its own queue wakes its workers:
    /// there is nothing to hear. Returns when the task is cancelled.
    public func watchJobArrivals(_ arrived: @escaping @Sendable () -> Void) async throws {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3_600))
        }
    }
}
