import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore

/// The daemon's read methods (`meetings.*`, `attendees.list`, `search.query`,
/// `recordings.*`, `links.*`) served in process without a socket, for `steno-bench query`:
/// the same handlers and store queries the daemon runs, minus the transport.
package struct QueryMethodsHarness: Sendable {
    private let table: RPCMethodTable
    private let logger = Logger(label: "steno.query-harness")

    /// The read methods over `store`; `inbox` only matters to `recordings.ingest`.
    package init(store: any CatalogStore, inbox: String = "/nonexistent") {
        var table = RPCMethodTable()
        let queue = JobQueue(store: store)
        RecordingMethods(store: store, queue: queue, inbox: Inbox(inbox)).register(in: &table)
        LinkMethods(store: store, queue: queue, linker: RecordingLinker(store: store)).register(in: &table)
        MeetingMethods(store: store, writeBack: nil, queue: queue).register(in: &table)
        self.table = table
    }

    /// Calls `method` as `user` (nil: an admin): what the daemon does for the request before it
    /// writes the reply's envelope, its result serialized as the daemon sends it (list pages
    /// write their bytes in the handler's task, so this times that too).
    package func call<Params: Encodable, Result: Decodable>(
        _ method: RPCMethodDescriptor<Params, Result>, _ params: Params, as user: User?
    ) async throws -> RPCResult {
        guard let entry = table[method.name] else { throw RPCError.methodNotFound(method.name) }
        let caller = Caller(
            credentials: PeerCredentials(pid: 0, uid: user == nil ? 0 : 1_000_000, gid: 0), user: user, role: user == nil ? .admin : .member)
        try RPCDispatcher.authorize(caller, for: entry.access, method: method.name)
        return try await entry.invoke(RPCCall(caller: caller, logger: logger, method: method.name), try JSONValueEncoder().encode(params))
    }
}

extension RPCResult {
    /// The `nextCursor` of a page, read from the end of its bytes without parsing its items
    /// (`PageTrailingCursor`), so a timed `--all` can follow the cursors at the cost of a few
    /// bytes per page.
    package var nextCursor: String? {
        get throws {
            if case .serialized(let bytes) = self {
                switch PageTrailingCursor(page: bytes[...]) {
                case .cursor(let cursor): return cursor
                case .none: return nil
                case .unknown: break
                }
            }
            return try json()["nextCursor"]?.stringValue
        }
    }
}
