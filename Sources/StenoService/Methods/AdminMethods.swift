import Foundation
import StenoAPI
import StenoCatalog

/// `admin.*`: operations on the daemon's data.
struct AdminMethods: Sendable {
    let store: any BackupStore
    /// The live catalog's files, which a rotation of backups never removes.
    var catalogFiles: Set<String> = []

    func register(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.adminBackup, access: .admin) { call, params in
            try await methods.backup(params, call: call)
        }
    }

    /// Writes the copy, then (when asked) removes the copies beside it older than the days given.
    func backup(_ params: BackupParams, call: RPCCall) async throws -> BackupResult {
        if let days = params.pruneOlderThanDays, !(1...36_500).contains(days) {
            throw RPCError.invalidParams("pruneOlderThanDays must be from 1 to 36500, got \(days)")
        }
        let started = ContinuousClock.now
        let bytes = try await store.backup(to: params.path)
        let elapsed = ContinuousClock.now - started
        call.logger.info("backup written", metadata: ["path": .string(params.path), "bytes": .stringConvertible(bytes), "uid": .stringConvertible(call.caller.credentials.uid)])
        var result = BackupResult(
            path: params.path, bytes: bytes, durationSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        guard let days = params.pruneOlderThanDays else { return result }
        let (pruned, failures) = try BackupRotation.prune(
            beside: params.path, before: Date().addingTimeInterval(-Double(days) * 86_400), sparing: catalogFiles)
        result.pruned = pruned
        call.logger.notice("old backups removed", metadata: ["removed": "\(pruned.count)", "olderThanDays": "\(days)", "uid": "\(call.caller.credentials.uid)"])
        guard failures.isEmpty else {
            throw RPCError.failedPrecondition(
                "the backup \(params.path) was written and \(pruned.count) older one(s) removed, but not: \(failures.joined(separator: "; "))")
        }
        return result
    }
}
