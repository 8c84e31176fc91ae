import Foundation
import StenoAPI
import StenoCatalog

/// `system.*` and `rpc.discover`.
struct SystemMethods: Sendable {
    let store: any CatalogStore
    let startedAt: Date
    let startedAtInstant: ContinuousClock.Instant
    let configuration: StenoConfiguration
    /// `Schema/openrpc.json`, parsed once.
    let openRPCDocument: JSONValue
    /// Where the device agent listens, once it does.
    var deviceAgentEndpoint: DeviceAgentEndpoint? = nil

    func register(in table: inout RPCMethodTable) {
        table.register(StenoMethods.systemVersion, access: .anyone) { _, _ in
            VersionInfo(version: StenoVersion.current, apiVersion: StenoVersion.apiVersion)
        }
        table.register(StenoMethods.systemStatus, access: .user) { call, _ in
            try await status(for: call.caller)
        }
        let document = openRPCDocument
        table.registerRaw(StenoMethods.rpcDiscover, access: .anyone) { _, _ in document }
    }

    func status(for caller: Caller) async throws -> SystemStatus {
        let statistics = try await store.statistics()
        let uptime = ContinuousClock.now - startedAtInstant
        return SystemStatus(
            version: StenoVersion.current,
            startedAt: startedAt,
            uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
            schemaVersion: statistics.schemaVersion,
            databasePath: statistics.location,
            socketPath: configuration.socketPath,
            inboxPath: configuration.inboxDirectory,
            // Row counts describe everyone's catalog (how many recordings, meetings and users
            // there are): an admin's to know, not a member's.
            counts: caller.isAdmin ? statistics.counts : [:],
            queueDepth: statistics.queueDepth,
            caller: CallerInfo(uid: caller.credentials.uid, user: caller.user?.name, role: caller.role ?? .member),
            deviceAgent: deviceAgentEndpoint?.current
        )
    }

    /// Parses the embedded OpenRPC document.
    static func loadOpenRPCDocument() throws -> JSONValue {
        guard let text = EmbeddedSchema.files["openrpc.json"] else {
            throw ConfigurationError("the binary was built without Schema/openrpc.json")
        }
        return try JSONValue.parse(text)
    }
}

/// The release of this build.
public enum StenoVersion {
    /// Steno's version.
    public static let current = "0.1.0"
    /// The JSON-RPC API generation.
    public static let apiVersion = 1
}
