#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOCore
import Synchronization

/// Keeps an eye on the process's file descriptors: raises the soft limit at start-up, and
/// warns (at most once a minute) when open descriptors near the limit or accepting a
/// connection failed for want of one — otherwise new clients starve without a word.
final class DescriptorWatch: Sendable {
    private enum Warning: Hashable {
        case nearLimit, acceptFailed
    }

    private struct State {
        var lastCheck: ContinuousClock.Instant?
        /// The last count found half the limit in use: count at every connection until it falls.
        var pastHalf = false
        /// When each kind of warning was last logged.
        var lastWarnings: [Warning: ContinuousClock.Instant] = [:]
        var failedAccepts = 0
    }

    /// The share of the soft limit in use at which to warn.
    static let warningFraction = 0.8
    private static let checkInterval: Duration = .seconds(1)
    private static let warningInterval: Duration = .seconds(60)

    private let logger: Logger
    private let state = Mutex(State())

    init(logger: Logger) {
        self.logger = logger
    }

    /// Raises the soft RLIMIT_NOFILE to the hard limit; returns both afterwards (nil if unknown).
    @discardableResult
    static func raiseSoftLimit() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// The soft RLIMIT_NOFILE.
    static var softLimit: UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Descriptors open in this process (entries of /proc/self/fd), nil where unknown.
    static func openCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        // ".", ".." and the descriptor of the listing itself.
        return max(0, count - 3)
    }

    /// Called for each accepted connection: counts descriptors once a second, every eighth
    /// connection, or at every one once half the limit is in use.
    func connectionOpened(connections: Int) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            let recent = state.lastCheck.map { now - $0 < Self.checkInterval } ?? false
            guard !recent || state.pastHalf || connections % 8 == 0 else { return false }
            state.lastCheck = now
            return true
        }
        guard due, let limit = Self.softLimit, let open = Self.openCount(), limit > 0 else { return }
        state.withLock { $0.pastHalf = Double(open) >= Double(limit) / 2 }
        guard Double(open) >= Double(limit) * Self.warningFraction else { return }
        warn(
            .nearLimit,
            "\(open) of \(limit) file descriptors are open (\(connections) RPC connections): new clients and files will soon be refused; raise LimitNOFILE or lower rpc.max_connections_per_uid / rpc.idle_timeout_seconds")
    }

    /// Called when accepting a connection failed.
    func acceptFailed(_ error: any Error) {
        let exhausted: Bool
        if let error = error as? IOError {
            exhausted = error.errnoCode == EMFILE || error.errnoCode == ENFILE
        } else {
            exhausted = false
        }
        let failures = state.withLock { state -> Int in
            state.failedAccepts += 1
            return state.failedAccepts
        }
        if exhausted {
            warn(
                .acceptFailed,
                "cannot accept connections: out of file descriptors (\(error); \(failures) failed accepts so far, limit \(Self.softLimit.map(String.init) ?? "unknown")); retrying in a second; raise LimitNOFILE or lower rpc.max_connections_per_uid")
        } else {
            warn(.acceptFailed, "cannot accept a connection: \(error)")
        }
    }

    private func warn(_ kind: Warning, _ message: String) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if let last = state.lastWarnings[kind], now - last < Self.warningInterval { return false }
            state.lastWarnings[kind] = now
            return true
        }
        if due { logger.warning("\(message)") }
    }
}

/// Sits on the listening socket behind NIO's accept backoff and reports failed accepts.
final class AcceptFailureReporter: ChannelInboundHandler, Sendable {
    typealias InboundIn = Any

    private let watch: DescriptorWatch

    init(watch: DescriptorWatch) {
        self.watch = watch
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        watch.acceptFailed(error)
    }
}
