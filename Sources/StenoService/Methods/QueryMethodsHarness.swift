import Foundation
import Logging
import StenoAPI
import StenoCore
import StenoStore

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

    /// Calls `method` as `user` (nil: an admin), its result encoded as the daemon would send it.
    package func call<Params: Encodable, Result: Decodable>(
        _ method: RPCMethodDescriptor<Params, Result>, _ params: Params, as user: User?
    ) async throws -> JSONValue {
        guard let entry = table[method.name] else { throw RPCError.methodNotFound(method.name) }
        let caller = Caller(
            credentials: PeerCredentials(pid: 0, uid: user == nil ? 0 : 1_000_000, gid: 0), user: user, role: user == nil ? .admin : .member)
        try RPCDispatcher.authorize(caller, for: entry.access, method: method.name)
        return try await entry.invoke(RPCCall(caller: caller, logger: logger, method: method.name), try JSONValueEncoder().encode(params))
    }
}
