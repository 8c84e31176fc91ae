import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoTesting
import Testing

@testable import StenoPostgres

/// What only PostgreSQL has to get right about recordings: the search lexemes it keeps in
/// Swift's hands, and daemons ingesting the same content at once.
@Suite("PostgreSQL recordings", .enabled(if: StoreBackend.postgresAvailable, "PostgreSQL is not installed (apt-get install postgresql)"))
struct PostgresRecordingTests {
    let metadata = RecordingMetadata(format: "wav", codec: "pcm_s16le", duration: 2.5)

    func ingest(_ path: String, hash: String, title: String? = nil, transcript: String? = nil) -> IngestRecord {
        var read = metadata
        read.title = title
        read.transcript = transcript
        return IngestRecord(
            path: path, size: 100, modified: Date(timeIntervalSince1970: 1_700_000_000), contentHash: hash, ownerID: nil, outcome: .ready(read))
    }

    func matches(_ catalog: PostgresCatalog, _ words: [String]) async throws -> [Int64] {
        try await catalog.rows(
            "SELECT recording_id FROM recording_search WHERE lexemes @@ \(SearchLexemes.prefixQuery(words))::tsquery ORDER BY recording_id"
        ).map { try $0.decode(Int64.self) }
    }

    @Test func theSearchIndexFollowsTitleTranscriptAndPaths() async throws {
        let cluster = try await PostgresCluster.shared()
        let settings = try PostgresSettings.parse(url: cluster.socketURL(database: try await cluster.createDatabase()))
        let catalog = try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.postgres"))
        defer { catalog.close() }
        let planning = try await catalog.recordIngest(ingest("alice/q3-budget.wav", hash: "a", title: "Café Planning", transcript: "Revenue grew"))
        let other = try await catalog.recordIngest(ingest("bob/standup.wav", hash: "b"))
        #expect(try await matches(catalog, ["cafe"]) == [planning.id])
        #expect(try await matches(catalog, ["REVEN"]) == [planning.id])
        #expect(try await matches(catalog, ["budget"]) == [planning.id])
        #expect(try await matches(catalog, ["standup"]) == [other.id])
        // A second path and a new read re-index the recording.
        _ = try await catalog.recordIngest(ingest("alice/copy.wav", hash: "a", title: "Retro", transcript: nil))
        #expect(try await matches(catalog, ["cafe"]).isEmpty)
        #expect(try await matches(catalog, ["retro", "copy"]) == [planning.id])
        let stored = try #require(try await catalog.row("SELECT title, transcript, path FROM recording_search WHERE recording_id = \(planning.id)"))
        let (title, transcript, path) = try stored.decode((String, String, String).self)
        #expect(title == "Retro" && transcript == "" && path == "alice/copy.wav alice/q3-budget.wav")
    }

    @Test func daemonsIngestingOneContentAtOnceMakeOneRecording() async throws {
        let cluster = try await PostgresCluster.shared()
        let settings = try PostgresSettings.parse(url: cluster.socketURL(database: try await cluster.createDatabase()))
        let catalogs = [
            try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.daemon0")),
            try await PostgresCatalog.open(settings, logger: Logger(label: "steno.test.daemon1")),
        ]
        defer { catalogs.forEach { $0.close() } }
        let ids = try await withThrowingTaskGroup(of: Int64.self) { group in
            for index in 0..<8 {
                let catalog = catalogs[index % 2]
                let record = ingest("inbox/copy-\(index).wav", hash: "same")
                group.addTask { try await catalog.recordIngest(record).id }
            }
            var all: [Int64] = []
            for try await id in group { all.append(id) }
            return all
        }
        #expect(Set(ids).count == 1)
        let recording = try await catalogs[0].recording(id: ids[0], visibleTo: nil)
        #expect(recording.paths.count == 8)
        #expect(try await catalogs[1].recordings(RecordingQuery()).count == 1)
    }
}
