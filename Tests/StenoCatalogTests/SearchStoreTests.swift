import Foundation
import StenoCatalog
import StenoCore
import Testing

/// Full-text search on every backend (``MeetingFixture`` describes the data): the same words
/// find the same meetings and recordings, case and diacritics ignored, every word a prefix,
/// within what the viewer may see; snippets are cut and marked the same way.
@Suite("Search in the catalog")
struct SearchStoreTests {
    /// A search, its viewer, and the meeting and recording hits (by fixture name) it finds.
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var viewer: String?
        var meetings: Set<String>
        var recordings: Set<String>
        var testDescription: String { "\"\(text)\" as \(viewer ?? "admin")" }
    }

    static let cases: [Case] = [
        Case(text: "Überprüfung", meetings: ["q1"], recordings: ["alice"]),
        Case(text: "uberprufung", meetings: ["q1"], recordings: ["alice"]),
        Case(text: "UBERPR", meetings: ["q1"], recordings: ["alice"]),
        Case(text: "QuArTeRlY", meetings: ["q1"], recordings: []),
        Case(text: "quart überp", meetings: ["q1"], recordings: []),
        Case(text: "zoe@external", meetings: ["q1"], recordings: []),
        Case(text: "angstrom", meetings: ["q1"], recordings: []),
        Case(text: "zurich", meetings: [], recordings: ["alice"]),
        Case(text: "design rev", meetings: ["design"], recordings: []),
        Case(text: "bob", meetings: ["q1", "one-on-one"], recordings: ["bob"]),
        Case(text: "one.wav", meetings: [], recordings: ["bob"]),
        Case(text: "nothing-like-this", meetings: [], recordings: []),
        Case(text: "uberprufung", viewer: "bob", meetings: ["q1"], recordings: ["alice"]),
        Case(text: "uberprufung", viewer: "carol", meetings: [], recordings: []),
        Case(text: "bob", viewer: "carol", meetings: ["one-on-one"], recordings: ["bob"]),
        Case(text: "focus", viewer: "dave", meetings: ["private"], recordings: ["dave"]),
        Case(text: "focus", viewer: "alice", meetings: ["private"], recordings: ["dave"]),
        Case(text: "focus", viewer: "bob", meetings: [], recordings: []),
    ]

    @Test(arguments: StoreBackend.available, cases)
    func theSameWordsFindTheSameHits(backend: StoreBackend, search: Case) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        try await f.linkAll()
        let viewers = ["alice": f.alice, "bob": f.bob, "carol": f.carol, "dave": f.dave]
        let recordings = ["alice": f.aliceRecording, "bob": f.bobRecording, "dave": f.daveRecording]
        let hits = try await store.search(search.text, visibleTo: search.viewer.flatMap { viewers[$0] }, offset: 0, limit: 50)
        let kinds = hits.map(\.kind)
        #expect(kinds == kinds.sorted { $0 == "meeting" && $1 == "recording" }, "meetings first")
        #expect(Set(hits.filter { $0.kind == "meeting" }.map(\.id)) == Set(search.meetings.compactMap { f.meetings[$0] }))
        #expect(Set(hits.filter { $0.kind == "recording" }.map(\.id)) == Set(search.recordings.compactMap { recordings[$0] }))
        #expect(hits.count == search.meetings.count + search.recordings.count)
    }

    @Test(arguments: StoreBackend.available)
    func snippetsMarkTheWordsFound(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)

        func snippets(_ text: String) async throws -> [String] {
            try await store.search(text, visibleTo: nil, offset: 0, limit: 10).map(\.snippet)
        }
        #expect(try await snippets("quarterly") == ["[Quarterly] Überprüfung"])
        // The recording's transcript wins over its title: a match at a sentence's start scores more.
        #expect(try await snippets("uberprufung") == ["Quarterly [Überprüfung]", "…the [Überprüfung] was approved."])
        // A long text: the sentence holding the word, cut to eight words.
        #expect(try await snippets("zurich") == ["…Then the budget for the new [Zürich] office…"])
        #expect(try await snippets("approved uberprufung") == ["…the [Überprüfung] was [approved]."])
        let hit = try #require(try await store.search("quarterly", visibleTo: nil, offset: 0, limit: 1).first)
        #expect(hit.title == "Quarterly Überprüfung" && hit.start == MeetingFixture.t0 && hit.id == f.meetings["q1"])
        let recording = try #require(try await store.search("zurich", visibleTo: nil, offset: 0, limit: 1).first)
        #expect(recording.title == "Überprüfung notes" && recording.start == MeetingFixture.at(minutes: 2))
    }

    @Test(arguments: StoreBackend.available)
    func pagesRunAcrossMeetingsThenRecordings(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        _ = try await MeetingFixture.make(store)
        #expect(try await store.search("uberprufung", visibleTo: nil, offset: 0, limit: 1).map(\.kind) == ["meeting"])
        #expect(try await store.search("uberprufung", visibleTo: nil, offset: 1, limit: 5).map(\.kind) == ["recording"])
        #expect(try await store.search("uberprufung", visibleTo: nil, offset: 2, limit: 5).isEmpty)
        #expect(try await store.search("  …  ", visibleTo: nil, offset: 0, limit: 5).isEmpty, "no words, no hits")
        await #expect(throws: StoreError.self) {
            _ = try await store.search(String(repeating: "word ", count: 200), visibleTo: nil, offset: 0, limit: 5)
        }
    }
}
