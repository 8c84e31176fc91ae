import Foundation
import StenoCatalog
import StenoCore
import Synchronization

/// Maps a connection's uid to a `Caller`, caching lookups: every request needs one, and
/// the users table changes rarely. Changes made through this daemon invalidate the cache at
/// once; changes made by another process sharing the catalog show within `timeToLive`.
final class CallerResolver: Sendable {
    private struct Entry {
        var user: User?
        var expires: ContinuousClock.Instant
    }

    /// The cached lookups, and how many times they were invalidated: a lookup that started
    /// before an invalidation may have read the users as they were, and is not cached.
    private struct Cache {
        var entries: [UInt32: Entry] = [:]
        var generation = 0
    }

    private let lookUp: @Sendable (UInt32) async throws -> User?
    private let daemonUID: UInt32
    private let timeToLive: Duration
    private let cache = Mutex(Cache())

    convenience init(store: any UserStore, daemonUID: UInt32, timeToLive: Duration = .seconds(5)) {
        self.init(daemonUID: daemonUID, timeToLive: timeToLive) { uid in try await store.user(forUID: uid) }
    }

    /// A resolver that finds a uid's user with `lookUp`.
    init(daemonUID: UInt32, timeToLive: Duration = .seconds(5), lookUp: @escaping @Sendable (UInt32) async throws -> User?) {
        self.lookUp = lookUp
        self.daemonUID = daemonUID
        self.timeToLive = timeToLive
    }

    /// The caller for these credentials.
    func caller(for credentials: PeerCredentials) async throws -> Caller {
        let now = ContinuousClock.now
        let user: User?
        let (cached, generation) = cache.withLock { ($0.entries[credentials.uid], $0.generation) }
        if let cached, cached.expires > now {
            user = cached.user
        } else {
            user = try await lookUp(credentials.uid)
            cache.withLock { cache in
                // Users changed while this lookup ran: what it read may be stale (a "no such
                // user" cached after the users.add would refuse the new user for a while).
                guard cache.generation == generation else { return }
                cache.entries[credentials.uid] = Entry(user: user, expires: now + timeToLive)
            }
        }
        let isSuperuser = credentials.uid == 0 || credentials.uid == daemonUID
        let role: Role? = isSuperuser ? .admin : user?.role
        return Caller(credentials: credentials, user: user, role: role)
    }

    /// Forgets every cached lookup; called after any change to users.
    func invalidate() {
        cache.withLock { cache in
            cache.entries.removeAll()
            cache.generation += 1
        }
    }
}
