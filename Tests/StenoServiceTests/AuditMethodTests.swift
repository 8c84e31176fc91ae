import Foundation
import Logging
import StenoAPI
import StenoCatalog
import StenoCore
import StenoSQLite
import Testing

@testable import StenoService

/// What the access log records of the methods, and who reads it: admins all, members what was
/// done to their own recordings.
@Suite("Access log: what is recorded and who reads it")
struct AuditMethodTests {
    let root = NSTemporaryDirectory() + "steno-audit-" + UUID().uuidString

    func call(_ user: User?, uid: UInt32 = 1000, admin: Bool = false) -> RPCCall {
        RPCCall(
            caller: Caller(credentials: PeerCredentials(pid: 1, uid: uid, gid: uid), user: user, role: admin ? .admin : .member),
            logger: Logger(label: "test"), method: "test")
    }

    @Test func deletionsHoldsAndForgottenContentAreLoggedForTheOwnerAndAdmins() async throws {
        try FileManager.default.createDirectory(atPath: root + "/inbox/bob", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let alice = try await catalog.addUser(UserDraft(name: "alice"))
        let bob = try await catalog.addUser(UserDraft(name: "bob"))
        let hash = String(repeating: "b", count: 64)
        try Data("bob's".utf8).write(to: URL(fileURLWithPath: root + "/inbox/bob/one.wav"))
        let id = try await catalog.recordIngest(
            IngestRecord(
                path: "bob/one.wav", size: 5, modified: Date(), contentHash: hash, ownerID: bob.id,
                outcome: .ready(RecordingMetadata(format: "wav", codec: "pcm", duration: 1, title: "Salary review")))
        ).id
        let inbox = Inbox(root + "/inbox")
        let recordings = RecordingMethods(store: catalog, queue: JobQueue(store: catalog), inbox: inbox)
        let retention = RetentionMethods(store: catalog, settings: RetentionSettings(), schedule: nil, timeZone: .gmt)
        let audit = AuditMethods(store: catalog)

        _ = try await retention.hold(RecordingHoldParams(ids: [id], reason: "case 118"), call: call(nil, uid: 0, admin: true))
        _ = try await retention.unhold([id], call: call(nil, uid: 0, admin: true))
        _ = try await recordings.delete(RecordingDeleteParams(ids: [id], files: true), call: call(bob, uid: 1002))
        _ = try await recordings.forgetContent([hash], call: call(bob, uid: 1002))

        let everything = try await audit.list(AuditListParams(), caller: call(nil, uid: 0, admin: true).caller).items
        #expect(everything.map(\.action) == [.forgetContent, .delete, .unhold, .hold])
        #expect(everything.map(\.actor) == ["bob", "bob", "uid 0", "uid 0"] && everything.map(\.uid) == [1002, 1002, 0, 0])
        #expect(everything.first { $0.action == .hold }?.detail == "case 118")
        #expect(everything.filter { $0.recordingID == id }.allSatisfy { $0.owner == "bob" })
        let text = try String(decoding: JSONEncoder().encode(everything), as: UTF8.self)
        #expect(!text.contains("Salary review"), "the log never holds a title")

        let bobs = try await audit.list(AuditListParams(), caller: call(bob).caller).items
        #expect(bobs.map(\.action) == [.delete, .unhold, .hold], "a member reads what was done to his recordings")
        #expect(try await audit.list(AuditListParams(), caller: call(alice).caller).items.isEmpty, "and nothing about others'")
        #expect(try await audit.list(AuditListParams(recording: id), caller: call(alice).caller).items.isEmpty)
        let page = try await audit.list(AuditListParams(limit: 2), caller: call(nil, uid: 0, admin: true).caller)
        let rest = try await audit.list(AuditListParams(cursor: page.nextCursor), caller: call(nil, uid: 0, admin: true).caller)
        #expect((page.items + rest.items).map(\.id) == everything.map(\.id) && rest.nextCursor == nil)
        await #expect(throws: RPCError.self, "a cursor is a token audit.list gave") {
            try await audit.list(AuditListParams(cursor: "2"), caller: call(nil, uid: 0, admin: true).caller)
        }
    }

    @Test func theAccessLogIsKeptAuditDaysAndPrunedNightly() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        func load(_ toml: String) throws -> StenoConfiguration {
            try toml.write(toFile: root + "/stenod.toml", atomically: true, encoding: .utf8)
            return try StenoConfiguration.load(overrides: .init(configFile: root + "/stenod.toml"), environment: [:], uid: 1000)
        }
        #expect(try load("").retention.auditDays == 365)
        let configured = try load("[retention]\naudit_days = 90\n")
        let nightly = try #require(StenoDaemon(configuration: configured, environment: [:]).defaultSchedules.first { $0.kind == AccessLogPruneJob.name })
        #expect(nightly.payload == #"{"olderThanDays":90}"#)
        #expect(throws: ConfigurationError.self) { try load("[retention]\naudit_days = 0\n") }
    }
}
