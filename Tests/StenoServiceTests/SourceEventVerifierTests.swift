import Foundation
import Logging
import StenoCalendar
import StenoCatalog
import StenoCore
import StenoSQLite
import StenoTesting
import Testing

@testable import StenoService

/// Revalidation of links to events outside the mirrored window: the Graph double is asked
/// (`GET /events/{id}`) for those only, and the links follow its answer.
@Suite("Revalidation outside the mirrored window", .serialized)
struct SourceEventVerifierTests {
    let root = NSTemporaryDirectory() + "steno-verify-" + UUID().uuidString
    static let mailbox = "alice@contoso.com"

    struct Bed {
        let catalog: SQLiteCatalog
        let double: GraphDouble
        let transport: HTTPTransport
        let secrets: SecretBox
        let account: CalendarAccount
        let linker: RecordingLinker

        func shutdown() async {
            try? await transport.shutdown()
            double.shutdown()
        }

        /// Alice's sealed sign-in, renewed with a token the double knows.
        func signIn() async throws {
            let token = double.issueRefreshToken(for: SourceEventVerifierTests.mailbox)
            try await catalog.replaceSecret(accountID: account.id, sealed: try secrets.seal(CalendarCredentials(refreshToken: token)))
        }

        /// Graph GETs of single events so far.
        var lookups: [String] { double.requests.filter { $0.uri.contains("/events/") }.map(\.uri) }
    }

    func event(_ id: String, _ subject: String, daysAgo: Double) -> GraphDouble.Event {
        let start = Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 - daysAgo * 86_400) / 60).rounded(.down) * 60)
        return GraphDouble.Event(
            id: id, subject: subject, start: start, end: start.addingTimeInterval(3600), organizer: .init(email: Self.mailbox),
            attendees: [.init("bob@contoso.com", name: "Bob", response: "accepted")])
    }

    /// A Graph account whose mirror holds `events` (as a sync would have left them) and the double the same.
    func setUp(_ events: [GraphDouble.Event]) async throws -> Bed {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let catalog = try await SQLiteCatalog.open(path: root + "/catalog.sqlite")
        let double = try GraphDouble()
        let secrets = try SecretBox.loadOrCreate(keyFile: root + "/secret.key")
        let alice = try await catalog.addUser(UserDraft(name: "alice", emails: [Self.mailbox]))
        let account = try await catalog.addAccount(
            CalendarAccountDraft(
                provider: .graph, ownerID: alice.id, displayName: Self.mailbox,
                settings: [
                    "mode": "delegated", "client_id": "steno-test-client", "authority": double.baseURL.absoluteString,
                    "graph_url": double.graphURL.absoluteString, "mailbox": Self.mailbox,
                ]), now: Date())
        let transport = HTTPTransport()
        let provider = GraphProvider(transport: transport)
        // The Graph double listens on 127.0.0.1, which alice's (a member's) accounts may reach only when allowed.
        var settings = CalendarSettings()
        settings.memberNetworks = ["127.0.0.1"]
        let verifier = SourceEventVerifier(
            store: catalog, lookups: [.graph: provider], secrets: secrets, settings: settings, logger: Logger(label: "verify"))
        let bed = Bed(
            catalog: catalog, double: double, transport: transport, secrets: secrets, account: account,
            linker: RecordingLinker(store: catalog, verifier: verifier))
        try await bed.signIn()
        for event in events { double.put(event, mailbox: Self.mailbox) }
        // The mirror as syncs left it, the old event from when the window still reached it.
        let context = CalendarAccountContext(account: account, credentials: try await CalendarAccountAccess(store: catalog, secrets: secrets).credentials(of: account.id), logger: Logger(label: "verify"))
        let found = try await provider.lookUpEvents(events.map { CalendarEventKey(calendarRemoteID: "me", resource: $0.id) }, context: context)
        let updates = events.compactMap { event -> ResourceUpdate? in
            guard case .found(let occurrence, let etag) = found[CalendarEventKey(calendarRemoteID: "me", resource: event.id)] else { return nil }
            return ResourceUpdate(resource: event.id, etag: etag, occurrences: [occurrence])
        }
        _ = try await catalog.applyCalendarChanges(
            CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "me", name: Self.mailbox), scope: .incremental, updatedResources: updates),
            accountID: account.id, now: Date())
        double.resetCounters()
        return bed
    }

    func record(_ bed: Bed, _ name: String, during event: GraphDouble.Event) async throws -> Int64 {
        try await bed.catalog.recordIngest(
            IngestRecord(
                path: "alice/\(name)", size: 10, modified: event.start, contentHash: name, ownerID: bed.account.ownerID,
                outcome: .ready(RecordingMetadata(
                    format: "wav", codec: "pcm", duration: 1800, recordedAt: event.start.addingTimeInterval(300), recordedAtSource: .sidecar)),
                now: Date())
        ).id
    }

    func link(_ bed: Bed, _ id: Int64) async throws -> LinkSummary? {
        try await RecordingLinkerTests.link(id, in: bed.catalog)
    }

    @Test func linksOutsideTheWindowFollowTheSourceAndOnlyThoseAreLookedUp() async throws {
        let old = event("old", "Budget review", daysAgo: 200)
        let recent = event("recent", "Standup", daysAgo: 2)
        let bed = try await setUp([old, recent])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let oldRecording = try await record(bed, "old.wav", during: old)
        let recentRecording = try await record(bed, "recent.wav", during: recent)
        _ = try await bed.linker.link(recordingIDs: [oldRecording, recentRecording])
        #expect(try await link(bed, oldRecording)?.meetingTitle == "Budget review")
        #expect(bed.lookups.isEmpty, "linking reads the mirror only")

        // Renamed at the source, where no sync looks any more: the nightly run finds out.
        bed.double.update("old", mailbox: Self.mailbox) { $0.subject = "Budget review (final)" }
        var counts = try await bed.linker.revalidate(recordingIDs: [oldRecording, recentRecording])
        #expect(counts[.refreshed] == 1 && counts[.stillValid] == 1, "\(counts)")
        #expect(try await link(bed, oldRecording)?.meetingTitle == "Budget review (final)")
        #expect(bed.lookups == ["/v1.0/me/events/old"], "only the event outside the window is looked up")

        // The sign-in stopped working: nothing can be learned, so nothing changes.
        bed.double.remove("old", mailbox: Self.mailbox)
        bed.double.revokeRefreshTokens()
        bed.double.expireAccessTokens()
        counts = try await bed.linker.revalidate(recordingIDs: [oldRecording])
        #expect(counts[.unchanged] == 1, "\(counts)")
        #expect(try await link(bed, oldRecording)?.state == .linked)

        // Signed in again: the event is gone at the source, the link is orphaned with its cache.
        try await bed.signIn()
        counts = try await bed.linker.revalidate(recordingIDs: [oldRecording])
        #expect(counts[.orphaned] == 1, "\(counts)")
        let orphan = try #require(try await link(bed, oldRecording))
        #expect(orphan.state == .orphaned && orphan.meetingTitle == "Budget review (final)")
        #expect(try await bed.catalog.linkAttendees(recordingID: oldRecording).map(\.email).contains("bob@contoso.com"))
        await bed.shutdown()
    }
}
