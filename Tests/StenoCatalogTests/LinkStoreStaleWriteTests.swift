import Foundation
import StenoCatalog
import StenoCore
import Testing

/// Two link jobs may decide one recording at once: a decision made from a link that has
/// changed since it was read is not written (``MeetingFixture`` describes the data).
@Suite("Link writes decided from a stale read")
struct LinkStoreStaleWriteTests {
    @Test(arguments: StoreBackend.available)
    func anUpdateDecidedFromAChangedLinkIsSkippedAndNamed(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        let recording = f.aliceRecording
        try await store.saveLink(f.update(recording, to: "q1"))
        let read = try #require(try await store.link(recordingID: recording))

        // Another job unlinks it after our read…
        try await store.saveLink(f.update(recording, to: nil, state: .unlinked, method: nil, action: "unlinked", minutes: 1))
        // …so our "orphaned", decided from the linked state we read, must not land on the unlinked one.
        var orphan = f.update(recording, to: nil, state: .orphaned, keepsCache: true, action: "orphaned", minutes: 2)
        orphan.expected = LinkExpectation(read)
        var other = f.update(f.bobRecording, to: "carol:one-on-one", minutes: 2)
        other.expected = LinkExpectation(nil)
        let stale = try await store.saveLinks([orphan, other])

        #expect(stale == [recording])
        let now = try #require(try await store.link(recordingID: recording))
        #expect(now.state == .unlinked && now.meetingID == nil)
        #expect(try await store.linkHistory(recordingID: recording).map(\.action) == ["linked", "unlinked"])
        #expect(try await store.link(recordingID: f.bobRecording)?.state == .linked, "an update whose link is as read is written")

        // Decided again from what is there now, it is written.
        var again = f.update(recording, to: "q1", action: "linked", minutes: 3)
        again.expected = LinkExpectation(now)
        #expect(try await store.saveLinks([again]).isEmpty)
        #expect(try await store.link(recordingID: recording)?.state == .linked)
    }

    @Test(arguments: StoreBackend.available)
    func aPersonsDecisionMeanwhileIsNotOverwritten(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let store = opened.store
        let f = try await MeetingFixture.make(store)
        let recording = f.aliceRecording
        // The linker read "no link", then a person linked it by hand to the same kind of target.
        try await store.saveLink(f.update(recording, to: "design", method: .manual, manual: true))
        var automatic = f.update(recording, to: "q1", minutes: 1)
        automatic.expected = LinkExpectation(nil)
        #expect(try await store.saveLinks([automatic]) == [recording])
        let link = try #require(try await store.link(recordingID: recording))
        #expect(link.isManual && link.eventID == f.events["design"])
    }
}
