import Foundation
import GRDB

extension SQLiteCatalog {
    public func backup(to path: String) async throws -> Int64 {
        guard path.hasPrefix("/") else {
            throw StoreError.invalid("the backup path must be absolute: \(path)")
        }
        if FileManager.default.fileExists(atPath: path) {
            throw StoreError.failedPrecondition("\(path) exists already; choose a new file name")
        }
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreError.failedPrecondition("the folder \(directory) does not exist")
        }
        // The backup runs on a reader in one step, inside a read transaction of the WAL pool:
        // a consistent snapshot, and writers keep going meanwhile.
        let destination = try DatabaseQueue(path: path)
        try writer.backup(to: destination)
        try destination.close()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
}
