import Foundation
import StenoCatalog
import StenoCore

/// A small catalog of people, calendars, meetings and recordings for the link, meeting and
/// search store tests, written only through the store protocols so it reads the same on
/// every backend.
///
/// - ada: an admin, no calendar.
/// - alice: her calendar holds "Quarterly Überprüfung" (she organises; bob and zoe invited),
///   "Design Review" (carol organises, alice invited), "Alice focus time" and a cancelled
///   "Cancelled sync".
/// - carol: her calendar holds "Design Review" too (the same meeting) and "Carol / Bob 1:1"
///   (bob invited).
/// - bob, dave: no calendars. Recordings: alice's during the quarterly, bob's during the 1:1,
///   dave's during alice's focus time, and a failed one of alice's.
struct MeetingFixture {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    static let transcript = """
        We opened the meeting with a short round of introductions. Then the budget for the new Zürich office was \
        discussed at length by everyone who was present today. Finally: the Überprüfung was approved.
        """

    let store: any CatalogStore & IngestStore
    var ada: Int64 = 0, alice: Int64 = 0, bob: Int64 = 0, carol: Int64 = 0, dave: Int64 = 0
    /// Meetings by their iCalendar UID.
    var meetings: [String: Int64] = [:]
    /// Events: "uid" for alice's calendar, "carol:uid" for carol's.
    var events: [String: Int64] = [:]
    /// Calendar accounts by owner name.
    var accounts: [String: Int64] = [:]
    var aliceRecording: Int64 = 0, bobRecording: Int64 = 0, daveRecording: Int64 = 0, failedRecording: Int64 = 0

    static func at(minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }

    static func occurrence(
        _ uid: String, calendar: String, title: String, at minutes: Double, organizer: String, attendees: [Attendee] = [],
        status: EventStatus = .confirmed
    ) -> EventOccurrence {
        let start = at(minutes: minutes)
        return EventOccurrence(
            remoteID: "/cal/\(calendar)/\(uid).ics", iCalUID: uid, seriesUID: uid,
            meetingIdentity: MeetingIdentity.iCalendar(uid: uid, recurrenceID: nil), title: title, start: start,
            end: start.addingTimeInterval(3600), status: status,
            organizer: Attendee(email: organizer, name: organizer.prefix { $0 != "@" }.capitalized, role: .organizer, response: .accepted),
            attendees: attendees, onlineMeetingURL: "https://meet.example/\(uid)")
    }

    /// Writes the people, calendars and recordings (no links yet).
    static func make(_ store: any CatalogStore & IngestStore) async throws -> MeetingFixture {
        var fixture = MeetingFixture(store: store)
        fixture.ada = try await store.addUser(UserDraft(name: "ada", role: .admin)).id
        fixture.alice = try await store.addUser(UserDraft(name: "alice", emails: ["alice@example.com"])).id
        fixture.bob = try await store.addUser(UserDraft(name: "bob", emails: ["bob@example.com"])).id
        fixture.carol = try await store.addUser(UserDraft(name: "carol", emails: ["carol@example.com"])).id
        fixture.dave = try await store.addUser(UserDraft(name: "dave", emails: ["dave@example.com"])).id

        let design = occurrence(
            "design", calendar: "alice", title: "Design Review", at: 120, organizer: "carol@example.com",
            attendees: [Attendee(email: "alice@example.com", name: "Alice", response: .tentative)])
        try await fixture.mirror(
            owner: fixture.alice, calendar: "alice",
            [
                occurrence(
                    "q1", calendar: "alice", title: "Quarterly Überprüfung", at: 0, organizer: "alice@example.com",
                    attendees: [
                        Attendee(email: "bob@example.com", name: "Bob", response: .accepted),
                        Attendee(email: "zoe@external.example", name: "Zoë Ångström", response: .none),
                    ]),
                design,
                occurrence("private", calendar: "alice", title: "Alice focus time", at: 240, organizer: "alice@example.com"),
                occurrence("cancelled", calendar: "alice", title: "Cancelled sync", at: 300, organizer: "alice@example.com", status: .cancelled),
            ])
        var carolsDesign = design
        carolsDesign.remoteID = "/cal/carol/design.ics"
        try await fixture.mirror(
            owner: fixture.carol, calendar: "carol",
            [
                carolsDesign,
                occurrence(
                    "one-on-one", calendar: "carol", title: "Carol / Bob 1:1", at: 360, organizer: "carol@example.com",
                    attendees: [Attendee(email: "bob@example.com", name: "Bob", response: .accepted)]),
            ])

        fixture.aliceRecording = try await fixture.ingest(
            "alice/q1.wav", owner: fixture.alice, at: 2, title: "Überprüfung notes", transcript: transcript)
        fixture.bobRecording = try await fixture.ingest("bob/one.wav", owner: fixture.bob, at: 361, title: "Bob recording")
        fixture.daveRecording = try await fixture.ingest("dave/focus.wav", owner: fixture.dave, at: 241, title: "Dave focus")
        fixture.failedRecording = try await store.recordIngest(
            IngestRecord(
                path: "alice/broken.wav", size: 1, modified: t0, contentHash: nil, ownerID: fixture.alice,
                outcome: .failed(reason: "not audio"), now: t0)
        ).id
        return fixture
    }

    mutating func mirror(
        owner: Int64, calendar: String, provider: CalendarProviderKind = .caldav, _ occurrences: [EventOccurrence]
    ) async throws {
        let account = try await store.addAccount(
            CalendarAccountDraft(provider: provider, ownerID: owner, displayName: "https://dav.example/\(calendar)/"), now: Self.t0)
        var changes = CalendarChangeSet(calendar: CalendarDescriptor(remoteID: "/cal/\(calendar)/", name: calendar), scope: .complete)
        changes.updatedResources = occurrences.map {
            ResourceUpdate(resource: "/cal/\(calendar)/\($0.iCalUID ?? "").ics", etag: "\"1\"", occurrences: [$0])
        }
        _ = try await store.applyCalendarChanges(changes, accountID: account.id, now: Self.t0)
        accounts[calendar] = account.id
        for event in try await store.mirroredEvents(accountID: account.id, includeDeleted: false) {
            let uid = event.occurrence.iCalUID ?? ""
            events[calendar == "alice" ? uid : "\(calendar):\(uid)"] = event.id
            meetings[uid] = event.meetingID
        }
    }

    func ingest(_ path: String, owner: Int64, at minutes: Double, title: String, transcript: String? = nil) async throws -> Int64 {
        try await store.recordIngest(
            IngestRecord(
                path: path, size: 100, modified: Self.t0, contentHash: path, ownerID: owner,
                outcome: .ready(
                    RecordingMetadata(
                        format: "wav", codec: "pcm_s16le", duration: 1800, recordedAt: Self.at(minutes: minutes), recordedAtSource: .sidecar,
                        title: title, transcript: transcript)),
                now: Self.t0)
        ).id
    }

    /// A link as the linker writes it.
    func update(_ recording: Int64, to event: String?, state: LinkState = .linked, method: LinkMethod? = .overlap, manual: Bool = false,
                keepsCache: Bool = false, action: String = "linked", minutes: Double = 0) -> LinkUpdate {
        LinkUpdate(
            recordingID: recording, state: state, method: method, isManual: manual, eventID: event.flatMap { events[$0] },
            keepsCache: keepsCache, score: method == .overlap ? 0.75 : nil, actor: manual ? "ada" : "linker", action: action,
            reason: "test", at: Self.at(minutes: 1000 + minutes))
    }

    /// Links alice's recording to the quarterly, bob's to the 1:1 and dave's (by hand) to
    /// alice's focus time.
    func linkAll() async throws {
        try await store.saveLinks([
            update(aliceRecording, to: "q1"),
            update(bobRecording, to: "carol:one-on-one"),
            update(daveRecording, to: "private", method: .manual, manual: true),
        ])
    }
}
