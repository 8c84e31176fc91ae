import Foundation
import Testing

@testable import StenoService

/// The scanner tells its caller about each folder before reading it, so a watch placed then
/// covers every file the listing does not: found by three daemons on one inbox, where the
/// daemon taking the inbox over scanned while files were still arriving, watched afterwards,
/// and never saw the file created in between.
@Suite("Inbox scanner")
struct InboxScannerTests {
    @Test func aFileCreatedOnceItsFolderIsAnnouncedIsListed() throws {
        let inbox = NSTemporaryDirectory() + "steno-scan-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: inbox + "/alice/notes", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: inbox) }
        try Data("one".utf8).write(to: URL(fileURLWithPath: inbox + "/alice/early.wav"))
        var announced: [String] = []
        let found = InboxScanner.scan(inbox: inbox) { folder in
            announced.append(folder)
            // What a dropper writes after the watch exists, before the folder is read.
            try? Data("late".utf8).write(to: URL(fileURLWithPath: inbox + "/" + (folder.isEmpty ? "" : folder + "/") + "late.wav"))
        }
        #expect(announced.sorted() == ["", "alice", "alice/notes"])
        #expect(Set(found.files.keys) == ["late.wav", "alice/early.wav", "alice/late.wav", "alice/notes/late.wav"])
        #expect(found.folders.sorted() == ["", "alice", "alice/notes"])
    }
}
