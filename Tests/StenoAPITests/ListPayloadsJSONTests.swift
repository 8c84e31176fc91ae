import Foundation
import StenoAPI
import StenoCore
import Testing

/// The list methods' results build their JSON directly (`JSONValueRepresentable`); what goes on
/// the wire must stay what their Codable encoding wrote, with every optional present and absent.
@Suite("List results' direct JSON")
struct ListPayloadsJSONTests {
    /// The direct JSON equals the Codable encoding, as values and as the bytes the daemon sends.
    private func expectSameJSON<Value: JSONValueRepresentable & Encodable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let encoded = try JSONValueEncoder().encode(value)
        #expect(value.jsonValue == encoded, sourceLocation: sourceLocation)
        #expect(value.jsonValue.serializedString == encoded.serializedString, sourceLocation: sourceLocation)
    }

    static let instant = Date(timeIntervalSince1970: 1_780_272_000.25)

    static let organizer = Attendee(email: "ann@example.com", name: "Ann \"A\" Ö", role: .organizer, response: .accepted)

    static let fullMeeting = MeetingSummary(
        id: 42, title: "Plan\nreview", start: instant, end: instant.addingTimeInterval(1800), organizer: organizer, attendeeCount: 3,
        recordings: [7, 9], location: "Room 1", onlineMeetingURL: "https://meet.example/x", isCancelled: true, isGone: false,
        isAllDay: true, firstDay: "2026-06-01", lastDay: "2026-06-02")

    static let bareMeeting = MeetingSummary(
        id: 1, title: "", start: nil, end: nil, organizer: nil, attendeeCount: 0, recordings: [], location: nil, onlineMeetingURL: nil,
        isCancelled: false, isGone: true)

    @Test func attendeesAndMeetings() throws {
        try expectSameJSON(Self.organizer)
        try expectSameJSON(Attendee(email: "bob@example.com"))
        try expectSameJSON(Self.fullMeeting)
        try expectSameJSON(Self.bareMeeting)
        try expectSameJSON(Page(items: [Self.fullMeeting, Self.bareMeeting], nextCursor: "after:1"))
        try expectSameJSON(Page(items: [Self.organizer], nextCursor: nil))
        try expectSameJSON(Page<MeetingSummary>(items: [], nextCursor: nil))
    }

    /// Read straight from JSON (`JSONValueDecodable`), a page gives what the Codable decoder gives.
    private func expectSameValue<Value: JSONValueDecodable & Codable & Equatable>(
        _ value: Value, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let json = try JSONValue.parse(try JSONValueEncoder().encode(value).serializedBytes)
        #expect(Value(jsonValue: json) == (try JSONValueDecoder().decode(Value.self, from: json)), sourceLocation: sourceLocation)
        #expect(Value(jsonValue: json) == value, sourceLocation: sourceLocation)
    }

    @Test func attendeesAndMeetingsReadStraightFromJSON() throws {
        try expectSameValue(Self.organizer)
        try expectSameValue(Attendee(email: "bob@example.com"))
        try expectSameValue(Self.fullMeeting)
        try expectSameValue(Self.bareMeeting)
        let page = Page(items: [Self.fullMeeting, Self.bareMeeting], nextCursor: "after:1")
        let json = try JSONValueEncoder().encode(page)
        let read = try #require(Page<MeetingSummary>(jsonValue: json))
        #expect(read.items == page.items && read.nextCursor == "after:1")
        #expect(Page<MeetingSummary>(jsonValue: ["items": []])?.items.isEmpty == true)
        // Anything else is left to the decoder, whose error names the member.
        let fields = try #require(Self.fullMeeting.jsonValue.objectValue)
        for (key, wrong) in [("id", "1"), ("start", "yesterday"), ("recordings", ["7"]), ("organizer", 3), ("isGone", nil)] as [(String, JSONValue)] {
            var changed = fields
            changed[key] = wrong
            #expect(MeetingSummary(jsonValue: .object(changed)) == nil, "\(key)")
        }
        #expect(Attendee(jsonValue: ["email": "a@example.com", "role": "chair", "response": "accepted"]) == nil)
        #expect(Page<MeetingSummary>(jsonValue: ["items": [.object(fields)], "nextCursor": 5]) == nil)
    }

    @Test func links() throws {
        let full = LinkSummary(
            recording: 5, recordingTitle: "Call", recordedAt: Self.instant, owner: "ann", state: .ambiguous, method: .overlap,
            isManual: true, score: 0.75, meeting: 42, meetingTitle: "Plan", meetingStart: Self.instant,
            meetingEnd: Self.instant.addingTimeInterval(60), candidates: "[1,2]", validatedAt: Self.instant)
        let bare = LinkSummary(
            recording: 6, recordingTitle: nil, recordedAt: nil, owner: nil, state: .unlinked, method: nil, isManual: false, score: nil,
            meeting: nil, meetingTitle: nil, meetingStart: nil, meetingEnd: nil, candidates: nil, validatedAt: nil)
        try expectSameJSON(full)
        try expectSameJSON(bare)
        try expectSameJSON(Page(items: [full, bare], nextCursor: "6"))
    }

    @Test func recordings() throws {
        let full = Recording(
            id: 3, contentHash: "abc", ownerID: 2, ownerName: "ann", paths: [RecordingPath(path: "a/b.m4a", isPresent: true)], size: 1024,
            format: "mp4", codec: "aac", duration: 61.5, sampleRate: 48_000, channels: 2, recordedAt: Self.instant,
            recordedAtSource: .fileName, title: "Call", iCalUIDHint: "uid", eventIDHint: "ev", providerHint: "graph", transcript: "hi",
            status: .failed, failureReason: "bad", createdAt: Self.instant, updatedAt: Self.instant.addingTimeInterval(1),
            warnings: ["truncated"])
        let bare = Recording(id: 4, contentHash: nil, status: .pending, createdAt: Self.instant, updatedAt: Self.instant)
        try expectSameJSON(full)
        try expectSameJSON(bare)
        try expectSameJSON(Page(items: [full, bare], nextCursor: nil))
    }

    @Test func searchHits() throws {
        let full = SearchHit(kind: "meeting", id: 1, title: "Plan", snippet: "[Plan] review", start: Self.instant, rankedAmongNewest: 200)
        let bare = SearchHit(kind: "recording", id: 2, title: "", snippet: "", start: nil)
        try expectSameJSON(full)
        try expectSameJSON(bare)
        try expectSameJSON(Page(items: [full, bare], nextCursor: "50"))
    }
}
