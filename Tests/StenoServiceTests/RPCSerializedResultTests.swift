import Foundation
import Logging
import NIOCore
import StenoAPI
import StenoCatalog
import StenoCore
import Testing

@testable import StenoService

/// List pages reach the wire as bytes their results wrote (`RPCResult.serialized`), wrapped in
/// the reply's envelope by the dispatcher: every reply, single or in a batch, must be the bytes
/// the tree of the same result gave before (`RPCResponse.json` serialized).
@Suite("RPC serialized results")
struct RPCSerializedResultTests {
    static let instant = Date(timeIntervalSince1970: 1_780_272_000.25)
    static let meetingsMethod = RPCMethodDescriptor<NoParams, Page<MeetingSummary>>("test.meetings")
    static let recordingsMethod = RPCMethodDescriptor<NoParams, Page<Recording>>("test.recordings")
    static let linksMethod = RPCMethodDescriptor<NoParams, Page<LinkSummary>>("test.links")
    static let searchMethod = RPCMethodDescriptor<NoParams, Page<SearchHit>>("test.search")
    static let attendeesMethod = RPCMethodDescriptor<NoParams, Page<Attendee>>("test.attendees")
    static let bigMethod = RPCMethodDescriptor<NoParams, Page<MeetingSummary>>("test.big")

    static let meetings = Page(
        items: [
            MeetingSummary(
                id: 42, title: "Plan \"Q3\"\n🎙", start: instant, end: instant.addingTimeInterval(1800),
                organizer: Attendee(email: "ann@example.com", name: "Ann \\ Ö", role: .organizer, response: .accepted), attendeeCount: 3,
                recordings: [7, -9], location: "Room\t1", onlineMeetingURL: "https://meet.example/x", isCancelled: true, isGone: false,
                isAllDay: true, firstDay: "2026-06-01", lastDay: "2026-06-02"),
            MeetingSummary(
                id: .min, title: "", start: nil, end: nil, organizer: nil, attendeeCount: 0, recordings: [], location: nil,
                onlineMeetingURL: nil, isCancelled: false, isGone: true),
        ], nextCursor: #"after:"42",x\"#)
    static let recordings = Page(
        items: [
            Recording(
                id: 3, contentHash: "abc", ownerID: 2, ownerName: "ann", paths: [RecordingPath(path: "a/\"b\".m4a", isPresent: true)],
                size: .max, format: "mp4", codec: "aac", duration: 61.5, sampleRate: 48_000, channels: 2, recordedAt: instant,
                recordedAtSource: .fileName, title: "Call", iCalUIDHint: "uid", eventIDHint: "ev", providerHint: "graph", transcript: "hi\u{01}",
                status: .failed, failureReason: "bad", createdAt: instant, updatedAt: instant.addingTimeInterval(1), warnings: ["truncated"]),
            Recording(id: 4, contentHash: nil, duration: .nan, status: .pending, createdAt: instant, updatedAt: instant),
        ], nextCursor: nil)
    static let links = Page(
        items: [
            LinkSummary(
                recording: 5, recordingTitle: "Call", recordedAt: instant, owner: "ann", state: .ambiguous, method: .overlap, isManual: true,
                score: 0.75, meeting: 42, meetingTitle: "Plan", meetingStart: instant, meetingEnd: instant.addingTimeInterval(60),
                candidates: "[1,2]", validatedAt: instant)
        ], nextCursor: "5")
    static let hits = Page(
        items: [SearchHit(kind: "meeting", id: 1, title: "Plan", snippet: "[Plan] review", start: instant, rankedAmongNewest: 200)],
        nextCursor: "50")
    static let attendees = Page(items: [Attendee(email: "bob@example.com"), Attendee(email: "c@example.com", name: "C")], nextCursor: nil)
    /// More than `largeResultBytes`: written on the global executor.
    static let big = Page(
        items: (0..<1000).map { id in
            MeetingSummary(
                id: Int64(id), title: "Meeting \(id)", start: instant, end: instant, organizer: Attendee(email: "o@example.com"),
                attendeeCount: id, recordings: [Int64(id)], location: nil, onlineMeetingURL: nil, isCancelled: false, isGone: false)
        }, nextCursor: "999")

    func makeTable() -> RPCMethodTable {
        var table = RPCMethodTable()
        table.register(Self.meetingsMethod, access: .anyone) { _, _ in Self.meetings }
        table.register(Self.recordingsMethod, access: .anyone) { _, _ in Self.recordings }
        table.register(Self.linksMethod, access: .anyone) { _, _ in Self.links }
        table.register(Self.searchMethod, access: .anyone) { _, _ in Self.hits }
        table.register(Self.attendeesMethod, access: .anyone) { _, _ in Self.attendees }
        table.register(Self.bigMethod, access: .anyone) { _, _ in Self.big }
        table.register(StenoMethods.systemVersion, access: .anyone) { _, _ in VersionInfo(version: "1.0", apiVersion: 1) }
        return table
    }

    func makeDispatcher() -> RPCDispatcher {
        RPCDispatcher(methods: makeTable(), resolver: CallerResolver(daemonUID: 0) { _ in nil }, logger: Logger(label: "test"))
    }

    /// What the dispatcher sent for `method` before results could be serialized: the tree of
    /// the result's Codable encoding in `RPCResponse.json`.
    func treeResponse(_ method: String, id: JSONValue) throws -> JSONValue {
        let result: JSONValue
        switch method {
        case Self.meetingsMethod.name: result = try JSONValueEncoder().encode(Self.meetings)
        case Self.recordingsMethod.name: result = try JSONValueEncoder().encode(Self.recordings)
        case Self.linksMethod.name: result = try JSONValueEncoder().encode(Self.links)
        case Self.searchMethod.name: result = try JSONValueEncoder().encode(Self.hits)
        case Self.attendeesMethod.name: result = try JSONValueEncoder().encode(Self.attendees)
        case Self.bigMethod.name: result = try JSONValueEncoder().encode(Self.big)
        default: result = try JSONValueEncoder().encode(VersionInfo(version: "1.0", apiVersion: 1))
        }
        return RPCResponse(id: id, result: result).json
    }

    static let methods = ["test.meetings", "test.recordings", "test.links", "test.search", "test.attendees", "test.big", "system.version"]
    static let ids: [JSONValue] = [1, 0, -5, .int(.max), "a \"quoted\" \\ id é", "", 2.5, nil]

    func reply(_ dispatcher: RPCDispatcher, _ request: JSONValue) async -> String? {
        await dispatcher.reply(to: ByteBuffer(bytes: request.serializedBytes), from: PeerCredentials(pid: 1, uid: 0, gid: 0))
            .map { String(buffer: $0) }
    }

    @Test func listMethodsReturnBytesOtherMethodsTrees() async throws {
        let table = makeTable()
        let call = RPCCall(caller: Caller(credentials: PeerCredentials(pid: 1, uid: 0, gid: 0), user: nil, role: .admin), logger: Logger(label: "t"), method: "")
        for method in Self.methods {
            let entry = try #require(table[method])
            let result = try await entry.invoke(call, nil)
            switch result {
            case .serialized: #expect(method != "system.version", "\(method)")
            case .value: #expect(method == "system.version", "\(method)")
            }
            #expect(result.bytes == (try treeResponse(method, id: 1)["result"]?.serializedBytes), "\(method)")
        }
    }

    @Test func singleRepliesAreTheTreesBytes() async throws {
        let dispatcher = makeDispatcher()
        for method in Self.methods {
            for id in Self.ids {
                let request: JSONValue = ["jsonrpc": "2.0", "id": id, "method": .string(method)]
                let sent = await reply(dispatcher, request)
                #expect(sent == (try treeResponse(method, id: id)).serializedString + "\n", "\(method) \(id)")
            }
        }
    }

    @Test func batchesMixSerializedTreesErrorsAndNotifications() async throws {
        let dispatcher = makeDispatcher()
        var requests: [JSONValue] = []
        var expected: [JSONValue] = []
        for (index, method) in Self.methods.enumerated() {
            let id = Self.ids[index % Self.ids.count]
            requests.append(["jsonrpc": "2.0", "id": id, "method": .string(method)])
            expected.append(try treeResponse(method, id: id))
            // A notification between them gets no response; an unknown method an error.
            requests.append(["jsonrpc": "2.0", "method": .string(method)])
        }
        requests.append(["jsonrpc": "2.0", "id": 99, "method": "test.nothing"])
        expected.append(RPCResponse(id: 99, error: .methodNotFound("test.nothing")).json)
        requests.append(["jsonrpc": "1.0", "id": 100, "method": "test.meetings"])
        expected.append(RPCResponse(id: 100, error: .invalidRequest("\"jsonrpc\" must be \"2.0\"")).json)
        let sent = await reply(dispatcher, .array(requests))
        #expect(sent == JSONValue.array(expected).serializedString + "\n")
        // One serialized reply alone in a batch.
        let single = await reply(dispatcher, [["jsonrpc": "2.0", "id": 7, "method": "test.links"]])
        #expect(single == JSONValue.array([try treeResponse("test.links", id: 7)]).serializedString + "\n")
        #expect(await reply(dispatcher, [["jsonrpc": "2.0", "method": "test.links"]]) == nil)
    }

    /// The cursor `steno-bench query` reads from a page's end is the page's, whatever its items
    /// and its cursor hold.
    @Test func nextCursorReadFromTheEndOfThePage() throws {
        let tricky = MeetingSummary(
            id: 1, title: #"x","nextCursor":"fake"}"#, start: nil, end: nil, organizer: nil, attendeeCount: 0, recordings: [],
            location: #","nextCursor":"#, onlineMeetingURL: nil, isCancelled: false, isGone: false)
        for cursor in [nil, "", "42", #"a\"b"#, #","nextCursor":"x""#, "é🎙\n"] as [String?] {
            for items in [[], [tricky], Self.meetings.items] {
                let page = Page(items: items, nextCursor: cursor)
                #expect(try RPCResult.serialized(page.jsonBytes).nextCursor == cursor, "\(cursor ?? "nil")")
                #expect(try RPCResult.value(JSONValueEncoder().encode(page)).nextCursor == cursor)
            }
        }
    }

    /// The harness `steno-bench query` times returns what the daemon sends (bytes for list
    /// pages), and following its cursors walks every meeting once.
    @Test func harnessReturnsTheSerializedPages() async throws {
        // Alice's catalog with the sample calendar, as the linker's tests set it up.
        let sample = RecordingLinkerTests()
        defer { try? FileManager.default.removeItem(atPath: sample.root) }
        let (catalog, _, _, transport, _, _) = try await sample.setUp()
        try await transport.shutdown()

        let harness = QueryMethodsHarness(store: catalog)
        var params = MeetingListParams(limit: 10)
        var seen: [Int64] = []
        while true {
            let page = try await harness.call(StenoMethods.meetingsList, params, as: nil)
            guard case .serialized = page else {
                Issue.record("meetings.list gave a tree")
                return
            }
            let json = try page.json()
            seen += json["items"]?.arrayValue?.compactMap { $0["id"]?.intValue } ?? []
            #expect(try page.nextCursor == json["nextCursor"]?.stringValue)
            guard let next = try page.nextCursor else { break }
            params.cursor = next
        }
        let all = try await catalog.meetings(MeetingQuery(limit: 1000))
        #expect(seen.count == 33 && Set(seen) == Set(all.map(\.id)))
    }
}
