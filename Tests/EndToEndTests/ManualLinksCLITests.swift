import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Links made by hand through the CLI: a recording and a meeting a month apart (or ids given
/// the wrong way round) are refused with what each really is unless `--force`; an unlink keeps
/// the meeting's cached copy for history; `steno links reset` hands a recording back to the
/// linker, which links it again at once.
@Suite("steno link, unlink and links reset", .blocksThreads, .serialized)
struct ManualLinksCLITests {
    static let config = """
        [watcher]
        settle_seconds = 0.2
        """

    /// Yesterday 10:00–11:00 UTC.
    static let review = ICalendarText.yesterday.addingTimeInterval(10 * 3600)
    /// 30 days before the review, 09:00–10:00 UTC.
    static let farAway = review.addingTimeInterval(-30 * 86_400 - 3600)

    /// A daemon with alice's calendar (the review, and a meeting a month earlier) and one
    /// recording made during the review, linked to it automatically. Returns the ids.
    static func linkedDaemon() throws -> (daemon: TestDaemon, recording: Int64, review: Int64, farAway: Int64) {
        let daemon = try TestDaemon(config: config)
        #expect(try steno(daemon, ["users", "add", "alice", "--email", "alice@example.com"]).status == 0)
        let attendees = ["PARTSTAT=ACCEPTED;CN=Bob:mailto:bob@example.com"]
        let calendar = daemon.root + "/alice.ics"
        try ICalendarText.calendar(
            ICalendarText.event(
                uid: "review", title: "Design review", start: review, end: review.addingTimeInterval(3600), organizer: "alice@example.com",
                attendees: attendees)
                + ICalendarText.event(
                    uid: "far", title: "Kick-off", start: farAway, end: farAway.addingTimeInterval(3600), organizer: "alice@example.com",
                    attendees: attendees)
        ).write(toFile: calendar, atomically: true, encoding: .utf8)
        let added = try steno(daemon, ["accounts", "add", "ics", calendar, "--owner", "alice", "--wait"])
        try #require(added.status == 0, "\(added.stderr)")

        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let recordedAt = ISO8601DateFormatter().string(from: review.addingTimeInterval(5 * 60))
        try Data(#"{"recordedAt": "\#(recordedAt)"}"#.utf8).write(to: URL(fileURLWithPath: folder + "/review-notes.json"))
        try IngestionEndToEndTests.wav(seed: 21).write(to: URL(fileURLWithPath: folder + "/review-notes.wav"))
        let client = try daemon.client()
        let links = try poll(timeout: 120, { try client.call(StenoMethods.linksList, LinkListParams(limit: 10)).items }) {
            $0.first?.state == .linked
        }
        let link = try #require(links.first, "no link")
        try #require(link.state == .linked && link.meetingTitle == "Design review", "\(link)")
        let meetings = try client.call(StenoMethods.meetingsList, MeetingListParams(from: farAway.addingTimeInterval(-86_400), to: Date(), limit: 10)).items
        let far = try #require(meetings.first { $0.title == "Kick-off" }?.id, "\(meetings.map(\.title))")
        return (daemon, link.recording, try #require(link.meeting), far)
    }

    static func link(_ daemon: TestDaemon, _ recording: Int64) throws -> LinkSummary {
        try #require(try daemon.client().call(StenoMethods.linksList, LinkListParams(limit: 10)).items.first { $0.recording == recording })
    }

    static func history(_ daemon: TestDaemon, _ recording: Int64) throws -> [LinkHistoryEntry] {
        try daemon.client().call(StenoMethods.linksHistory, RecordingReferenceParams(id: recording))
    }

    @Test func aLinkToAMeetingAMonthAwayIsRefusedWithBothTimesUnlessForced() throws {
        let (daemon, recording, review, far) = try Self.linkedDaemon()
        defer { daemon.shutdown() }

        let refused = try steno(daemon, ["link", String(recording), String(far)])
        #expect(refused.status != 0, "\(refused.stdout)")
        let day = { (date: Date) in String(ISO8601DateFormatter().string(from: date).prefix(10)) }
        for part in [
            "recording \(recording) was made \(day(Self.review)) 10:05", "meeting \(far) is \(day(Self.farAway)) 09:00–10:00 UTC",
            "30 days apart", "--force",
        ] {
            #expect(refused.stderr.contains(part), "missing \(part.debugDescription) in \(refused.stderr)")
        }
        #expect(try Self.link(daemon, recording).meeting == review, "a refused link changes nothing")

        let forced = try steno(daemon, ["link", String(recording), String(far), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let linked = try Self.link(daemon, recording)
        #expect(linked.meeting == far && linked.isManual && linked.meetingTitle == "Kick-off")
        #expect(try Self.history(daemon, recording).last?.reason?.contains("forced") == true)

        // Within the linker's tolerance is no gap: back to the review without --force.
        let near = try steno(daemon, ["link", String(recording), String(review)])
        #expect(near.status == 0, "\(near.stderr)")
    }

    @Test func idsGivenTheWrongWayRoundAreNamed() throws {
        let (daemon, recording, review, far) = try Self.linkedDaemon()
        defer { daemon.shutdown() }
        // A meeting id that is no recording's, given first.
        let meeting = try #require([review, far].first { $0 != recording })
        let swapped = try steno(daemon, ["link", String(meeting), String(recording)])
        #expect(swapped.status != 0)
        #expect(
            swapped.stderr.contains("\(meeting) is a meeting and \(recording) a recording")
                && swapped.stderr.contains("steno link \(recording) \(meeting)"), "\(swapped.stderr)")
    }

    @Test func anUnlinkKeepsTheMeetingForHistoryAndResetLinksAgain() throws {
        let (daemon, recording, review, _) = try Self.linkedDaemon()
        defer { daemon.shutdown() }

        let unlinked = try steno(daemon, ["unlink", String(recording)])
        #expect(unlinked.status == 0, "\(unlinked.stderr)")
        #expect(unlinked.stdout.contains("Design review"), "\(unlinked.stdout)")
        let link = try Self.link(daemon, recording)
        #expect(link.state == .unlinked && link.isManual)
        #expect(link.meetingTitle == "Design review" && link.meetingStart == Self.review, "the cached copy stays: \(link)")
        let unlink = try #require(try Self.history(daemon, recording).last)
        #expect(unlink.action == "unlinked-by-hand" && unlink.fromMeeting == review && unlink.toMeeting == nil, "\(unlink)")
        #expect(unlink.reason?.contains("Design review") == true, "\(unlink)")
        let table = try steno(daemon, ["links", "history", String(recording)])
        #expect(table.stdout.contains("Design review"), "\(table.stdout)")

        let reset = try steno(daemon, ["links", "reset", String(recording)])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("linked to meeting \(review)") && reset.stdout.contains("Design review"), "\(reset.stdout)")
        let relinked = try Self.link(daemon, recording)
        #expect(relinked.state == .linked && !relinked.isManual && relinked.meeting == review && relinked.method != .manual)
        let entry = try #require(try Self.history(daemon, recording).last)
        #expect(entry.action == "reset-to-automatic" && entry.actor != "linker" && entry.toMeeting == review, "\(entry)")
    }
}
