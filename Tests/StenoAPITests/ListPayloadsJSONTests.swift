import Foundation
import StenoAPI
import StenoCore
import Testing

/// The list methods' results write their JSON straight into bytes (`JSONObjectWritable`); what
/// goes on the wire must stay what the tree of their Codable encoding serialized to, with every
/// optional present and absent, strings that need escaping, and numbers and dates at their edges.
@Suite("List results' direct JSON")
struct ListPayloadsJSONTests {
    /// The bytes equal the serialized Codable encoding, and read back as the same tree.
    private func expectSameJSON<Value: JSONObjectWritable & Encodable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let encoded = try JSONValueEncoder().encode(value)
        #expect(String(decoding: value.jsonBytes, as: UTF8.self) == encoded.serializedString, sourceLocation: sourceLocation)
        #expect(value.jsonBytes == encoded.serializedBytes, sourceLocation: sourceLocation)
        // NaN is not equal to itself: the trees are compared only where every double is finite.
        if !encoded.serializedString.contains("null") {
            #expect(try JSONValue.parse(value.jsonBytes) == encoded, sourceLocation: sourceLocation)
        }
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
        let fields = try #require(try JSONValueEncoder().encode(Self.fullMeeting).objectValue)
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

    // MARK: - Edge values

    /// Strings each writer must escape exactly as the tree does.
    static let awkwardTexts = [
        "quote \" and backslash \\", "slash / stays", "tab\tnew\nline\rcr", "\u{00}\u{01}\u{08}\u{0C}\u{1F}\u{7F}",
        "Zoë, Ünïcödé, 日本語", "emoji 🎙️👩🏽‍💻", "", "long run without escapes, then one \" at the end",
    ]

    /// Instants with and without milliseconds, before 1970, and at the years' limits.
    static let instants = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_780_272_000), Date(timeIntervalSince1970: 1_780_272_000.001),
        Date(timeIntervalSince1970: 1_780_272_000.999), Date(timeIntervalSince1970: -86_400.5), Date(timeIntervalSince1970: 253_402_300_799),
        Date(timeIntervalSince1970: -62_135_596_800),
    ]

    @Test func stringsNeedingEscapesInEveryTextMember() throws {
        for text in Self.awkwardTexts {
            try expectSameJSON(Attendee(email: text, name: text, role: .optional, response: .tentative))
            try expectSameJSON(
                MeetingSummary(
                    id: 1, title: text, start: nil, end: nil, organizer: Attendee(email: text, name: text), attendeeCount: 0, recordings: [],
                    location: text, onlineMeetingURL: text, isCancelled: false, isGone: false, isAllDay: true, firstDay: text, lastDay: text))
            try expectSameJSON(
                Recording(
                    id: 2, contentHash: text, ownerName: text, paths: [RecordingPath(path: text, isPresent: false)], format: text, codec: text,
                    title: text, iCalUIDHint: text, eventIDHint: text, providerHint: text, transcript: text, status: .ready,
                    failureReason: text, createdAt: Self.instant, updatedAt: Self.instant, warnings: [text, text]))
            try expectSameJSON(
                LinkSummary(
                    recording: 3, recordingTitle: text, recordedAt: nil, owner: text, state: .linked, method: .manual, isManual: true,
                    score: nil, meeting: nil, meetingTitle: text, meetingStart: nil, meetingEnd: nil, candidates: text, validatedAt: nil))
            try expectSameJSON(SearchHit(kind: text, id: 4, title: text, snippet: text, start: nil))
            try expectSameJSON(Page(items: [Attendee(email: text)], nextCursor: text))
        }
    }

    @Test func integersAtTheirEdges() throws {
        for number in [Int64.min, -1, 0, 1, 9, 10, 1_000_000_007, .max] {
            let small = Int(truncatingIfNeeded: number)
            try expectSameJSON(
                MeetingSummary(
                    id: number, title: "", start: nil, end: nil, organizer: nil, attendeeCount: small, recordings: [number, ~number],
                    location: nil, onlineMeetingURL: nil, isCancelled: false, isGone: false))
            try expectSameJSON(
                Recording(
                    id: number, contentHash: nil, ownerID: number, size: number, sampleRate: small, channels: small, status: .pending, createdAt: Self.instant,
                    updatedAt: Self.instant))
            try expectSameJSON(SearchHit(kind: "meeting", id: number, title: "", snippet: "", start: nil, rankedAmongNewest: small))
            try expectSameJSON(
                LinkSummary(
                    recording: number, recordingTitle: nil, recordedAt: nil, owner: nil, state: .orphaned, method: nil, isManual: false,
                    score: nil, meeting: number, meetingTitle: nil, meetingStart: nil, meetingEnd: nil, candidates: nil, validatedAt: nil))
        }
    }

    @Test func doublesAsTheTreeWritesThem() throws {
        let doubles: [Double] = [
            0, -0.0, 1, 2, -3, 61.5, 0.1, 1.0 / 3, 1e-5, .leastNonzeroMagnitude, .leastNormalMagnitude, 1e21, 123_456_789_012_345_680, .greatestFiniteMagnitude,
            .nan, .infinity, -.infinity,
        ]
        for number in doubles {
            try expectSameJSON(Recording(id: 1, contentHash: nil, duration: number, status: .pending, createdAt: Self.instant, updatedAt: Self.instant))
            try expectSameJSON(
                LinkSummary(
                    recording: 1, recordingTitle: nil, recordedAt: nil, owner: nil, state: .ambiguous, method: .overlap, isManual: false,
                    score: number, meeting: nil, meetingTitle: nil, meetingStart: nil, meetingEnd: nil, candidates: nil, validatedAt: nil))
        }
    }

    @Test func datesWithAndWithoutMilliseconds() throws {
        for date in Self.instants {
            try expectSameJSON(
                MeetingSummary(
                    id: 1, title: "t", start: date, end: date, organizer: nil, attendeeCount: 0, recordings: [], location: nil,
                    onlineMeetingURL: nil, isCancelled: false, isGone: false))
            try expectSameJSON(
                Recording(id: 1, contentHash: nil, recordedAt: date, recordedAtSource: .container, status: .pending, createdAt: date, updatedAt: date))
            try expectSameJSON(
                LinkSummary(
                    recording: 1, recordingTitle: nil, recordedAt: date, owner: nil, state: .linked, method: nil, isManual: false, score: nil,
                    meeting: 2, meetingTitle: nil, meetingStart: date, meetingEnd: date, candidates: nil, validatedAt: date))
            try expectSameJSON(SearchHit(kind: "recording", id: 1, title: "", snippet: "", start: date))
        }
        // The tree writes `null` for an instant outside the years 1–9999 (the Codable encoder
        // refuses it): the direct bytes do too.
        let far = Date(timeIntervalSince1970: 1e12)
        let hit = SearchHit(kind: "meeting", id: 1, title: "", snippet: "", start: far)
        #expect(String(decoding: hit.jsonBytes, as: UTF8.self) == #"{"id":1,"kind":"meeting","snippet":"","start":null,"title":""}"#)
    }
}
