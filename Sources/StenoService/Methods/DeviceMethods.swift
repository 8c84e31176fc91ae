import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `devices.*`: phones running the Steno agent. A device belongs to the caller who adds or
/// pairs it (the socket's uid decides); members manage their own, admins everyone's.
struct DeviceMethods: Sendable {
    let store: any CatalogStore
    /// The zone of a device's events sent without one, unless the device is given another.
    var defaultTimeZone: String = TimeZone.current.identifier
    /// What one member may own (`[members]`).
    var quotas = MemberQuotas()

    func register(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.devicesAdd, access: .user) { call, params in
            let owner = try Self.owner(call.caller)
            let label = try Self.label(params.label ?? "device")
            let zone = try methods.timeZone(params.timeZone)
            let token = DeviceCredentials.newToken()
            let device = try await methods.store.addDevice(
                ownerID: owner.id, label: label, timeZone: zone, tokenHash: DeviceCredentials.digest(token: token),
                limit: methods.quotas.deviceLimit, now: Date())
            call.logger.info("device added", metadata: ["device": "\(device.id)", "uid": "\(call.caller.credentials.uid)"])
            return DeviceAddResult(device: Self.summary(device), token: token)
        }
        table.register(StenoMethods.devicesList, access: .user) { call, params in
            let limit = try PageCursor.limit(params.limit)
            let after = try params.cursor.map(PageCursor.decode)
            let devices = try await methods.store.devices(
                ownerID: call.caller.isAdmin ? nil : call.caller.user?.id ?? -1, afterID: after, limit: limit + 1)
            let page = devices.prefix(limit).map(Self.summary)
            return Page(items: page, nextCursor: devices.count > limit ? page.last.map { PageCursor.encode($0.id) } : nil)
        }
        table.register(StenoMethods.devicesRevoke, access: .user) { call, params in
            let device = try await methods.permittedDevice(params.id, caller: call.caller)
            let revoked = try await methods.store.revokeDevice(id: device.id, now: Date())
            call.logger.info("device revoked", metadata: ["device": "\(device.id)", "uid": "\(call.caller.credentials.uid)"])
            return Self.summary(revoked)
        }
        table.register(StenoMethods.devicesPair, access: .user) { call, params in
            let owner = try Self.owner(call.caller)
            let label = try params.label.map(Self.label)
            let zone = try params.timeZone.map { try methods.timeZone($0) }
            let code = DeviceCredentials.newPairingCode()
            let now = Date()
            let expiresAt = now.addingTimeInterval(DeviceCredentials.pairingLifetime)
            guard let canonical = DeviceCredentials.canonicalPairingCode(code) else {
                throw RPCError.internalError("a pairing code could not be made")
            }
            try await methods.store.addPairing(
                codeHash: DeviceCredentials.digest(pairingCode: canonical), ownerID: owner.id, label: label, timeZone: zone,
                expiresAt: expiresAt, limit: methods.quotas.pairingCodeLimit, now: now)
            call.logger.info("device pairing code issued", metadata: ["uid": "\(call.caller.credentials.uid)"])
            return DevicePairing(code: code, expiresAt: expiresAt, label: label, timeZone: zone)
        }
    }

    /// The device, if the caller owns it or is an admin; `.notFound` otherwise (members do not
    /// learn which ids exist).
    func permittedDevice(_ id: Int64, caller: Caller) async throws -> DeviceRecord {
        let device: DeviceRecord
        do {
            device = try await store.device(id: id)
        } catch StoreError.notFound {
            throw RPCError.notFound("no device \(id)")
        }
        guard caller.isAdmin || device.ownerID == caller.user?.id else { throw RPCError.notFound("no device \(id)") }
        return device
    }

    static func owner(_ caller: Caller) throws -> User {
        guard let user = caller.user else {
            throw RPCError.notPermitted("uid \(caller.credentials.uid) is not a Steno user; an admin can add you with steno users add")
        }
        return user
    }

    static func label(_ text: String) throws -> String {
        let label = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !label.isEmpty, label.count <= 64, !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RPCError.invalidParams("a device label is 1 to 64 printable characters, e.g. my-iphone")
        }
        return label
    }

    func timeZone(_ name: String?) throws -> String {
        guard let name else { return defaultTimeZone }
        guard let zone = TimeZone(identifier: name) else {
            throw RPCError.invalidParams("\"\(name)\" is not an IANA time zone (e.g. Europe/Berlin, America/New_York)")
        }
        return zone.identifier
    }

    static func summary(_ device: DeviceRecord) -> DeviceSummary {
        DeviceSummary(
            id: device.id, label: device.label, owner: device.ownerName, account: device.accountID, timeZone: device.timeZone,
            createdAt: device.createdAt, lastContactAt: device.lastContactAt, lastAddress: device.lastAddress, revokedAt: device.revokedAt,
            calendars: device.calendars, events: device.events)
    }
}
