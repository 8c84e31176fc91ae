import Foundation
import StenoCore
import Testing

@testable import StenoCatalog
@testable import StenoSQLite

@Suite("Recordings in the catalog")
struct RecordingStoreTests {
    let metadata = RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 2.5, sampleRate: 8000, channels: 1)

    func ingest(_ path: String, hash: String?, size: Int64 = 100, owner: Int64? = nil, failed: String? = nil, at seconds: Double = 0) -> IngestRecord {
        IngestRecord(
            path: path, size: size, modified: Date(timeIntervalSince1970: 1_700_000_000), contentHash: hash, ownerID: owner,
            outcome: failed.map { .failed(reason: $0) } ?? .ready(metadata), now: Date(timeIntervalSince1970: 1_700_000_000 + seconds))
    }

    @Test(arguments: StoreBackend.available) func sameContentTwiceIsOneRecordingWithTwoPaths(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let first = try await catalog.recordIngest(ingest("alice/a.wav", hash: "h1"))
        let second = try await catalog.recordIngest(ingest("alice/copy-of-a.wav", hash: "h1"))
        #expect(first.id == second.id)
        #expect(Set(second.paths.map(\.path)) == ["alice/a.wav", "alice/copy-of-a.wav"])
        #expect(try await catalog.recordings(RecordingQuery()).count == 1)
        // Ingesting the same path again changes nothing.
        let again = try await catalog.recordIngest(ingest("alice/a.wav", hash: "h1"))
        #expect(again.id == first.id && again.paths.count == 2)
    }

    /// A recording's paths are listed by their bytes, in lists and alone: "e" and a combining
    /// accent (0x65 0xCC 0x81) before "f", where comparing Swift strings puts "é" after it.
    @Test(arguments: StoreBackend.available) func severalPathsAreListedByTheirBytes(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let byBytes = ["Z.wav", "a b.wav", "a.wav", "x/e\u{301}.wav", "x/f.wav", "x/\u{E9}t\u{E9}.wav"]
        var id: Int64 = 0
        for path in [byBytes[4], byBytes[1], byBytes[5], byBytes[0], byBytes[3], byBytes[2]] {
            id = try await catalog.recordIngest(ingest(path, hash: "h")).id
        }
        let listed = try #require(try await catalog.recordings(RecordingQuery()).first)
        #expect(listed.paths.map { Array($0.path.utf8) } == byBytes.map { Array($0.utf8) })
        #expect(listed.paths.allSatisfy { $0.isPresent })
        let shown = try await catalog.recording(id: id, visibleTo: nil)
        #expect(shown.paths.map { Array($0.path.utf8) } == byBytes.map { Array($0.utf8) })
    }

    @Test func presentPathsComeBeforeGoneOnes() {
        let paths = [RecordingPath(path: "a.wav", isPresent: false), RecordingPath(path: "b.wav", isPresent: true),
                     RecordingPath(path: "B.wav", isPresent: false), RecordingPath(path: "a.wav", isPresent: true)]
        #expect(paths.sorted(by: RecordingPath.presentFirstThenByBytes) == [
            RecordingPath(path: "a.wav", isPresent: true), RecordingPath(path: "b.wav", isPresent: true),
            RecordingPath(path: "B.wav", isPresent: false), RecordingPath(path: "a.wav", isPresent: false),
        ])
    }

    @Test(arguments: StoreBackend.available) func moveUpdatesThePathAndDeleteMarksMissing(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let recording = try await catalog.recordIngest(ingest("alice/old.wav", hash: "h"))
        let gone = try await catalog.markPathGone("alice/old.wav", now: Date())
        #expect(gone?.status == .missing)
        let moved = try await catalog.recordIngest(ingest("alice/new.wav", hash: "h"))
        #expect(moved.id == recording.id)
        #expect(moved.status == .ready, "a recording that comes back is ready again")
        #expect(moved.paths == [RecordingPath(path: "alice/new.wav", isPresent: true)])
        #expect(try await catalog.markPathGone("alice/never-seen.wav", now: Date()) == nil)
    }

    @Test(arguments: StoreBackend.available) func renameSeenAsNewPathThenDeletionKeepsOnlyTheNewPath(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.recordIngest(ingest("alice/old.wav", hash: "h"))
        _ = try await catalog.recordIngest(ingest("alice/new.wav", hash: "h"))
        let after = try await catalog.markPathGone("alice/old.wav", now: Date())
        #expect(after?.paths == [RecordingPath(path: "alice/new.wav", isPresent: true)])
        #expect(after?.status == .ready)
    }

    @Test(arguments: StoreBackend.available) func oneOfTwoPathsGoneKeepsTheRecordingReady(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        _ = try await catalog.recordIngest(ingest("a.wav", hash: "h"))
        _ = try await catalog.recordIngest(ingest("b.wav", hash: "h"))
        let after = try await catalog.markPathGone("a.wav", now: Date())
        #expect(after?.status == .ready)
        #expect(after?.paths == [RecordingPath(path: "b.wav", isPresent: true)], "a path that is gone while another remains is forgotten")
    }

    @Test(arguments: StoreBackend.available) func overwrittenFileRepointsThePath(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let old = try await catalog.recordIngest(ingest("alice/take.wav", hash: "old"))
        let new = try await catalog.recordIngest(ingest("alice/take.wav", hash: "new"))
        #expect(old.id != new.id)
        #expect(try await catalog.recording(id: old.id, visibleTo: nil).status == .missing)
        #expect(try await catalog.pathState("alice/take.wav")?.recordingID == new.id)
    }

    @Test(arguments: StoreBackend.available) func failuresKeepTheirReasonAndRecover(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let failed = try await catalog.recordIngest(ingest("x.mp3", hash: nil, failed: "not audio: no known container signature"))
        #expect(failed.status == .failed)
        #expect(failed.failureReason == "not audio: no known container signature")
        let again = try await catalog.recordIngest(ingest("x.mp3", hash: nil, failed: "still unreadable"))
        #expect(again.id == failed.id, "an unreadable file at one path stays one recording")
        let listed = try await catalog.recordings(RecordingQuery(status: .failed))
        #expect(listed.map(\.id) == [failed.id])
    }

    @Test(arguments: StoreBackend.available) func queriesFilterAndRespectVisibility(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let alice = try await catalog.addUser(UserDraft(name: "alice"))
        let bob = try await catalog.addUser(UserDraft(name: "bob"))
        var withTime = metadata
        withTime.recordedAt = Date(timeIntervalSince1970: 1_763_631_000)
        withTime.recordedAtSource = .sidecar
        let mine = try await catalog.recordIngest(
            IngestRecord(path: "alice/a.wav", size: 1, modified: Date(), contentHash: "a", ownerID: alice.id, outcome: .ready(withTime)))
        let theirs = try await catalog.recordIngest(ingest("bob/b.wav", hash: "b", owner: bob.id))
        #expect(mine.ownerName == "alice")
        #expect(mine.recordedAtSource == .sidecar)
        #expect(try await catalog.recordings(RecordingQuery(visibleTo: alice.id)).map(\.id) == [mine.id])
        #expect(try await catalog.recordings(RecordingQuery(ownerID: bob.id)).map(\.id) == [theirs.id])
        #expect(try await catalog.recordings(RecordingQuery(from: Date(timeIntervalSince1970: 1_763_600_000))).map(\.id) == [mine.id])
        await #expect(throws: StoreError.self) { _ = try await catalog.recording(id: theirs.id, visibleTo: alice.id) }
        #expect(try await catalog.recordings(RecordingQuery(afterID: mine.id, limit: 10)).map(\.id) == [theirs.id])
        #expect(try await catalog.presentPaths().count == 2)
    }

    @Test(arguments: StoreBackend.available) func warningsAreKeptListableAndClearedWhenTheFileFails(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        var cut = metadata
        cut.warnings = ["truncated: header says 11.2 s, data holds 6.7 s"]
        let warned = try await catalog.recordIngest(
            IngestRecord(path: "a.wav", size: 1, modified: Date(), contentHash: "a", ownerID: nil, outcome: .ready(cut)))
        let plain = try await catalog.recordIngest(ingest("b.wav", hash: "b"))
        #expect(warned.warnings == cut.warnings)
        #expect(plain.warnings.isEmpty)
        #expect(try await catalog.recordings(RecordingQuery(withWarnings: true)).map(\.id) == [warned.id])
        #expect(try await catalog.recordings(RecordingQuery()).first { $0.id == warned.id }?.warnings == cut.warnings)
        let failed = try await catalog.recordIngest(ingest("a.wav", hash: "a", failed: "no audio in WAV: the 'data' chunk is empty"))
        #expect(failed.id == warned.id)
        #expect(failed.warnings.isEmpty)
        #expect(try await catalog.recordings(RecordingQuery(withWarnings: true)).isEmpty)
    }

    /// Pages whose matches lie on both sides of a long run of others (past the ids an admin's
    /// page walks before it asks the filters' indexes) hold the same recordings in id order.
    @Test(arguments: StoreBackend.available) func pagesListMatchesAcrossLongRunsOfOthers(backend: StoreBackend) async throws {
        let opened = try await backend.open()
        let catalog = opened.store
        let bob = try await catalog.addUser(UserDraft(name: "bob"))
        var ids: [Int64] = []
        for number in 0..<30 {
            let owner = [0, 12, 27, 28, 29].contains(number) ? bob.id : nil
            ids.append(try await catalog.recordIngest(ingest("r\(number).wav", hash: "h\(number)", owner: owner)).id)
        }
        let bobs = [ids[0], ids[12], ids[27], ids[28], ids[29]]
        #expect(try await catalog.recordings(RecordingQuery(ownerID: bob.id, limit: 2)).map(\.id) == Array(bobs.prefix(2)))
        #expect(try await catalog.recordings(RecordingQuery(ownerID: bob.id, afterID: ids[12], limit: 1)).map(\.id) == [ids[27]])
        // One match in the upper part of the walked ids, the next far after them.
        #expect(try await catalog.recordings(RecordingQuery(ownerID: bob.id, afterID: ids[1], limit: 2)).map(\.id) == [ids[12], ids[27]])
        #expect(try await catalog.recordings(RecordingQuery(ownerID: bob.id, limit: 10)).map(\.id) == bobs)
        #expect(try await catalog.recordings(RecordingQuery(ownerID: bob.id, afterID: ids[28], limit: 3)).map(\.id) == [ids[29]])
    }
}
