import Foundation
import StenoAPI
import StenoCatalog

/// `admin.*`: operations on the daemon's data.
struct AdminMethods: Sendable {
    let store: any BackupStore

    func register(in table: inout RPCMethodTable) {
        let store = self.store
        table.register(StenoMethods.adminBackup, access: .admin) { call, params in
            let started = ContinuousClock.now
            let bytes = try await store.backup(to: params.path)
            let elapsed = ContinuousClock.now - started
            call.logger.info("backup written", metadata: ["path": .string(params.path), "bytes": .stringConvertible(bytes), "uid": .stringConvertible(call.caller.credentials.uid)])
            return BackupResult(
                path: params.path, bytes: bytes,
                durationSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
    }
}
