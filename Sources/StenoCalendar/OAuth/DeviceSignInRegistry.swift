import Foundation
import Synchronization

/// Device sign-ins in progress in the daemon: each polls its token endpoint in a task of its
/// own, and its state is looked up by id (`steno accounts add graph --wait` polls it).
///
/// Kept in memory only: a sign-in lives 15 minutes, and after a restart the person starts
/// again. Finished sign-ins are remembered for an hour so a late status query still answers.
public final class DeviceSignInRegistry: Sendable {
    /// Where a sign-in stands.
    public enum State: Sendable, Hashable {
        case pending
        /// Signed in; the account was stored (its id) and its first sync queued (the job).
        case succeeded(accountID: Int64, jobID: Int64?)
        case failed(String)
    }

    /// One sign-in as the registry remembers it.
    public struct Entry: Sendable, Hashable {
        public var id: String
        public var ownerID: Int64
        public var authorization: DeviceAuthorization
        public var state: State
        public var finishedAt: Date?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let tasks = Mutex<[String: Task<Void, Never>]>([:])

    public init() {}

    /// Registers a started sign-in and polls it in the background.
    ///
    /// - Parameters:
    ///   - poll: waits for the tokens (``DeviceAuthorization/poll(_:now:sleep:)``).
    ///   - complete: stores what the tokens give (the account) and returns its id and first job.
    /// - Returns: the sign-in's id.
    public func begin(
        ownerID: Int64, authorization: DeviceAuthorization, poll: @escaping @Sendable () async throws -> OAuthTokens,
        complete: @escaping @Sendable (OAuthTokens) async throws -> (accountID: Int64, jobID: Int64?)
    ) -> String {
        let id = UUID().uuidString.lowercased()
        let entry = Entry(id: id, ownerID: ownerID, authorization: authorization, state: .pending)
        entries.withLock { all in
            all = all.filter { $0.value.finishedAt.map { Date().timeIntervalSince($0) < 3600 } ?? true }
            all[id] = entry
        }
        let task = Task { [weak self] in
            let state: State
            do {
                let tokens = try await poll()
                let stored = try await complete(tokens)
                state = .succeeded(accountID: stored.accountID, jobID: stored.jobID)
            } catch is CancellationError {
                state = .failed("the sign-in was cancelled (the daemon is stopping)")
            } catch {
                state = .failed(String(describing: error))
            }
            self?.finish(id, state)
        }
        tasks.withLock { $0[id] = task }
        return id
    }

    /// The sign-in with this id, if it is known.
    public func entry(_ id: String) -> Entry? {
        entries.withLock { $0[id] }
    }

    /// Stops every sign-in still polling (daemon shutdown).
    public func cancelAll() {
        for task in tasks.withLock({ Array($0.values) }) { task.cancel() }
    }

    private func finish(_ id: String, _ state: State) {
        entries.withLock { all in
            all[id]?.state = state
            all[id]?.finishedAt = Date()
        }
        _ = tasks.withLock { $0.removeValue(forKey: id) }
    }
}
