import Foundation
import StenoCore
import Testing

@Suite("Inbox paths and recording times")
struct RecordingRulesTests {
    @Test(arguments: [
        ("alice/standup.m4a", InboxPath.Kind.recording),
        ("alice/standup.json", .sidecar),
        ("alice/standup.vtt", .transcript),
        ("alice/standup.m4a.part", .ignored),
        ("alice/standup.m4a.crdownload", .ignored),
        ("alice/standup.wav~", .ignored),
        ("alice/.standup.m4a", .ignored),
        ("alice/._standup.m4a", .ignored),
        ("alice/.DS_Store", .ignored),
        ("alice/@eaDir/standup.m4a", .ignored),
        ("__MACOSX/alice/standup.m4a", .ignored),
        ("Thumbs.db", .ignored),
        ("alice/notes.tmp", .ignored),
        ("alice/~recording.m4a", .ignored),
        ("~$standup.m4a", .ignored),
        ("alice/~standup.json", .ignored),
        ("alice/stand~up.m4a", .recording),
        ("alice/~drafts/standup.m4a", .recording),
    ])
    func classification(_ path: String, _ kind: InboxPath.Kind) {
        #expect(InboxPath.kind(of: path) == kind, "\(path)")
    }

    @Test func namesAndOwners() {
        #expect(InboxPath.stem("alice/standup.2026.m4a") == "alice/standup.2026")
        #expect(InboxPath.stem("alice/noext") == "alice/noext")
        #expect(InboxPath.ownerFolder(of: "alice/2026/standup.m4a") == "alice")
        #expect(InboxPath.ownerFolder(of: "standup.m4a") == nil)
        #expect(InboxPath.fileExtension("A.M4A") == "m4a")
    }

    @Test func datesInFileNames() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        func date(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }
        #expect(RecordingTime.fromFileName("standup-2026-11-20.m4a", timeZone: berlin) == date("2026-11-19T23:00:00Z"))
        #expect(RecordingTime.fromFileName("20261120_093015.wav", timeZone: berlin) == date("2026-11-20T08:30:15Z"))
        #expect(RecordingTime.fromFileName("call 2026-11-20T09-30.mp3", timeZone: berlin) == date("2026-11-20T08:30:00Z"))
        #expect(RecordingTime.fromFileName("Recording 2026-11-20 at 09.30.15.m4a", timeZone: berlin) == date("2026-11-20T08:30:15Z"))
        #expect(RecordingTime.fromFileName("take-12345678.wav", timeZone: berlin) == nil)
        #expect(RecordingTime.fromFileName("2026-02-31.wav", timeZone: berlin) == nil)
        #expect(RecordingTime.fromFileName("meeting.wav", timeZone: berlin) == nil)
    }

    @Test func sourcesInOrderOfTrust() {
        let a = Date(timeIntervalSince1970: 1), b = Date(timeIntervalSince1970: 2), c = Date(timeIntervalSince1970: 3)
        let utc = TimeZone(identifier: "UTC") ?? .current
        #expect(RecordingTime.resolve(sidecar: a, container: b, fileName: "2026-01-01.wav", modified: c, timeZone: utc)?.source == .sidecar)
        #expect(RecordingTime.resolve(sidecar: nil, container: b, fileName: "2026-01-01.wav", modified: c, timeZone: utc)?.source == .container)
        #expect(RecordingTime.resolve(sidecar: nil, container: nil, fileName: "2026-01-01.wav", modified: c, timeZone: utc)?.source == .fileName)
        #expect(RecordingTime.resolve(sidecar: nil, container: nil, fileName: "x.wav", modified: c, timeZone: utc)?.date == c)
        #expect(RecordingTime.resolve(sidecar: nil, container: nil, fileName: "x.wav", modified: nil, timeZone: utc) == nil)
    }
}
