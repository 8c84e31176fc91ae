/// Word that another process enqueued work, for a queue several daemons share: their idle
/// workers wake at once instead of at their next poll.
public protocol JobArrivalStore: Sendable {
    /// Calls `arrived` each time a job may have been enqueued by any process, until the calling
    /// task is cancelled. Also calls it after (re)connecting, since word may have been missed.
    ///
    /// - Throws: when the store cannot listen at all; a lost connection is retried inside.
    func watchJobArrivals(_ arrived: @escaping @Sendable () -> Void) async throws
}
