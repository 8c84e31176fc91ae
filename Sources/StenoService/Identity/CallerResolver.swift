import Foundation
import StenoCore
import StenoStore
import Synchronization

/// Maps a connection's uid to a `Caller`, caching lookups: every request needs one, and
/// the users table changes rarely. Changes made through this daemon invalidate the cache at
/// once; changes made by another process sharing the catalog show within `timeToLive`.
final class CallerResolver: Sendable {
    private struct Entry {
        var user: User?
        var expires: ContinuousClock.Instant
    }

    private let store: any UserStore
    private let daemonUID: UInt32
    private let timeToLive: Duration
    private let cache = Mutex<[UInt32: Entry]>([:])

    init(store: any UserStore, daemonUID: UInt32, timeToLive: Duration = .seconds(5)) {
        self.store = store
        self.daemonUID = daemonUID
        self.timeToLive = timeToLive
    }

    /// The caller for these credentials.
    func caller(for credentials: PeerCredentials) async throws -> Caller {
        let now = ContinuousClock.now
        let user: User?
        if let cached = cache.withLock({ $0[credentials.uid] }), cached.expires > now {
            user = cached.user
        } else {
            user = try await store.user(forUID: credentials.uid)
            cache.withLock { $0[credentials.uid] = Entry(user: user, expires: now + timeToLive) }
        }
        let isSuperuser = credentials.uid == 0 || credentials.uid == daemonUID
        let role: Role? = isSuperuser ? .admin : user?.role
        return Caller(credentials: credentials, user: user, role: role)
    }

    /// Forgets every cached lookup; called after any change to users.
    func invalidate() {
        cache.withLock { $0.removeAll() }
    }
}
