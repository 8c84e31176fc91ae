import Foundation
import StenoCore
import StenoStore

// TEMPORARY while the PostgreSQL store is being ported protocol by protocol (issue 19): each
// section below is deleted as its protocol gets a real implementation in its own file. The
// configuration does not offer PostgreSQL until this file is gone.

enum NotYetPorted: Error, CustomStringConvertible {
    case method(String)
    var description: String { switch self { case .method(let name): "\(name) is not available on PostgreSQL yet" } }
}

// MARK: DeviceStore
extension PostgresCatalog: DeviceStore {
    public func addDevice(ownerID: Int64, label: String, timeZone: String, tokenHash: Data, now: Date) async throws -> DeviceRecord { throw NotYetPorted.method(#function) }
    public func devices(ownerID: Int64?, afterID: Int64?, limit: Int) async throws -> [DeviceRecord] { throw NotYetPorted.method(#function) }
    public func device(id: Int64) async throws -> DeviceRecord { throw NotYetPorted.method(#function) }
    public func device(tokenHash: Data) async throws -> DeviceRecord? { throw NotYetPorted.method(#function) }
    public func revokeDevice(id: Int64, now: Date) async throws -> DeviceRecord { throw NotYetPorted.method(#function) }
    public func recordDeviceContact(id: Int64, address: String?, now: Date) async throws { throw NotYetPorted.method(#function) }
    public func addPairing(codeHash: Data, ownerID: Int64, label: String?, timeZone: String?, expiresAt: Date, now: Date) async throws { throw NotYetPorted.method(#function) }
    public func redeemPairing(codeHash: Data, tokenHash: Data, label: String, timeZone: String, now: Date) async throws -> DeviceRecord? { throw NotYetPorted.method(#function) }
    public func applyDeviceEvents(_ writes: [DeviceEventWrite], accountID: Int64, now: Date) async throws -> DeviceWriteReport { throw NotYetPorted.method(#function) }
    public func eventChanges(_ query: EventChangesQuery) async throws -> EventChangesPage { throw NotYetPorted.method(#function) }
}

extension PostgresCatalog: CatalogStore {}
