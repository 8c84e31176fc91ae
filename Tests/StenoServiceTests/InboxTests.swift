import Foundation
import Testing

@testable import StenoService

/// The inbox and the paths under it, resolved in one place.
@Suite("Inbox paths")
struct InboxTests {
    @Test func theRootIsResolvedOnceAndKeptAsGivenWhenItDoesNotExistYet() throws {
        let root = NSTemporaryDirectory() + "steno-inbox-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/real")
        let resolved = try #require(Inbox.resolved(root))
        #expect(Inbox(root + "/link").root == resolved + "/real")
        #expect(Inbox(root + "/not-yet").root == root + "/not-yet")
    }

    @Test func aCallersPathIsRelativeToTheInboxOrRefused() {
        let inbox = Inbox("/srv/inbox-that-does-not-exist")
        #expect(inbox.relative(ofGiven: "alice/a.wav") == "alice/a.wav")
        #expect(inbox.relative(ofGiven: "/srv/inbox-that-does-not-exist/alice/../bob/b.wav") == "bob/b.wav")
        #expect(inbox.relative(ofGiven: "/srv/inbox-that-does-not-exist") == "")
        #expect(inbox.relative(ofGiven: "../etc/passwd") == nil)
        #expect(inbox.relative(ofGiven: "/srv/inbox-that-does-not-exist-2/x.wav") == nil)
        #expect(inbox.absolute("") == inbox.root)
        #expect(inbox.absolute("alice/a.wav") == "/srv/inbox-that-does-not-exist/alice/a.wav")
    }

    @Test func aJobsPathNeverLeavesTheInbox() {
        #expect(Inbox.normalized("alice/./a.wav") == "alice/a.wav")
        #expect(Inbox.normalized("alice//a.wav") == "alice/a.wav")
        #expect(Inbox.normalized("alice/../a.wav") == nil)
        #expect(Inbox.normalized("/etc/passwd") == nil)
        #expect(Inbox.normalized("") == nil)
    }
}
