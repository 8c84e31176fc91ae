#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoAgent
import StenoTesting
import Testing

/// A real stenod with its device agent listener on 127.0.0.1 (an ephemeral port), and the
/// user the tests' iPhone belongs to: alice, whom root (the tests' uid) is mapped to, so that
/// root's devices, recordings dropped in `inbox/alice` and alice's calendars are one person's.
final class AgentTestDaemon: @unchecked Sendable {
    static let config = """
        [watcher]
        settle_seconds = 0.2
        [jobs]
        workers = 2
        [device_agent]
        listen = "127.0.0.1:0"
        """

    let daemon: TestDaemon
    /// The listener's address, from `system.status`.
    let baseURL: URL

    init() throws {
        daemon = try TestDaemon(config: Self.config)
        let rpc = try daemon.client()
        _ = try rpc.call(StenoMethods.usersAdd, UserAddParams(name: "alice", emails: ["alice@example.com"], uids: [getuid()], role: .admin))
        // The listener binds after the socket answers: wait for it to say where it is.
        let address = try Self.waitFor(timeout: 30) { try rpc.call(StenoMethods.systemStatus).deviceAgent }
        guard let address else {
            throw TestDaemonError("system.status names no deviceAgent address after 30 s:\n\(daemon.log)")
        }
        guard let url = URL(string: address.contains("://") ? address : "http://" + address) else {
            throw TestDaemonError("the device agent address \(address) is not a URL")
        }
        baseURL = url
    }

    deinit { daemon.shutdown() }

    /// A client for the daemon's socket.
    func rpc() throws -> StenoClient { try daemon.client() }

    /// Pairs a device the way a user does: `devices.pair` on the server, the code typed on the phone.
    func pairDevice(label: String = "test-iphone", timeZone: String = "Europe/Berlin") async throws -> DeviceRegistration {
        let pairing = try rpc().call(StenoMethods.devicesPair, DeviceAddParams(label: label, timeZone: timeZone))
        // Typed the way people type it: lower case, a space for the dash.
        let typed = pairing.code.lowercased().replacingOccurrences(of: "-", with: " ")
        return try await StenoAgentClient.register(baseURL: baseURL, pairingCode: typed, timeZone: timeZone)
    }

    /// The calendar the daemon made for the device's `externalCalendarId`.
    func calendar(remoteID: String) throws -> CalendarSummary? {
        try rpc().call(StenoMethods.calendarsList, CalendarListParams(limit: 1000)).items.first { $0.remoteID == remoteID }
    }

    /// Copies a sample recording from `Media/recordings` into alice's inbox with a sidecar
    /// saying when it was recorded, and waits (bounded) until it is ready; returns its id.
    func dropRecording(_ sample: String, as name: String, recordedAt: Date, title: String) throws -> Int64 {
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sidecar = #"{"recordedAt": "\#(recordedAt.formatted(.iso8601))", "title": "\#(title)"}"#
        try Data(sidecar.utf8).write(to: URL(fileURLWithPath: "\(folder)/\(name).json"))
        let source = Self.mediaFolder.appendingPathComponent("recordings/\(sample)")
        let extensionName = source.pathExtension
        // Written aside and moved in: the watcher sees the whole file at once.
        let staging = daemon.root + "/\(name).\(extensionName)"
        try FileManager.default.copyItem(atPath: source.path, toPath: staging)
        try FileManager.default.moveItem(atPath: staging, toPath: "\(folder)/\(name).\(extensionName)")
        let rpc = try rpc()
        let found = try Self.waitFor(timeout: 60) {
            try rpc.call(StenoMethods.recordingsList, RecordingListParams(limit: 100)).items
                .first { $0.status == .ready && $0.paths.contains { $0.path.hasSuffix("/\(name).\(extensionName)") } }?.id
        }
        guard let found else { throw TestDaemonError("\(name).\(extensionName) was not ready within 60 s:\n\(daemon.log)") }
        return found
    }

    /// `waitFor` for an asynchronous fetch.
    static func waitFor<T>(timeout: TimeInterval, _ fetch: () async throws -> T?) async throws -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let value = try await fetch() { return value }
            if Date() >= deadline { return nil }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }

    /// The repository's `Media` folder.
    static var mediaFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Media")
    }

    /// Asks `fetch` every 100 ms until it gives a value or `timeout` passes; nil then.
    static func waitFor<T>(timeout: TimeInterval, _ fetch: () throws -> T?) throws -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let value = try fetch() { return value }
            if Date() >= deadline { return nil }
            usleep(100_000)
        }
    }
}

/// The tests' iPhone: a calendar store, its saved state and the loop, paired with a daemon.
struct TestPhone {
    static let berlin = TimeZone(identifier: "Europe/Berlin") ?? .current
    let registration: DeviceRegistration
    let client: StenoAgentClient
    let store: InMemoryCalendarStore
    let state = InMemoryAgentStateStore()
    let sync: AgentSync

    init(pairedWith server: AgentTestDaemon, calendars: [String: String] = ["CAL-WORK": "Work", "CAL-HOME": "Zuhause"]) async throws {
        registration = try await server.pairDevice()
        client = StenoAgentClient(baseURL: server.baseURL, registration: registration)
        store = InMemoryCalendarStore(calendars: calendars, identifierPrefix: "PHONE", defaultTimeZone: Self.berlin)
        sync = AgentSync(
            client: client, store: store, stateStore: state,
            configuration: AgentSyncConfiguration(deviceId: registration.device.id, defaultTimeZone: Self.berlin))
    }

    /// This device's live events as the server holds them, by `externalId`.
    func serverCopy() async throws -> [String: ServerEvent] {
        let feed = try await client.deviceChanges(since: 0, includeDeleted: false)
        let live = feed.events.filter { !$0.isDeleted }
        return Dictionary(live.compactMap { row in row.externalId.map { ($0, row) } }, uniquingKeysWith: { _, last in last })
    }
}
