import Foundation
import StenoAPI
import StenoCore
import Testing

@testable import StenoService

/// Job kinds write the payloads and results that earlier versions wrote and read what they
/// queued: catalogs hold queued jobs across upgrades, and `jobs.list` shows both.
@Suite("Job kinds")
struct JobKindTests {
    /// A job of `kind` with `payload`, as the queue would hand it out.
    func job(_ kind: String, _ payload: String) -> Job {
        let now = Date()
        return Job(
            id: 1, kind: kind, payload: payload, state: .running, priority: 0, attempts: 1, maxAttempts: 5, runAt: now, createdAt: now,
            updatedAt: now)
    }

    @Test func draftsWriteThePayloadsOfEarlierVersions() throws {
        let sync = try CalendarSyncJobHandler.draft(accountID: 42)
        #expect(sync.kind == "calendar.sync" && sync.payload == #"{"account":42}"# && sync.uniqueKey == "calendar.sync:42")
        let one = try IngestJobHandler.draft(path: "alice/a \"b\".flac")
        #expect(one.kind == "ingest" && one.payload == #"{"path":"alice/a \"b\".flac"}"# && one.uniqueKey == "ingest:alice/a \"b\".flac")
        let many = try IngestJobHandler.draft(paths: ["alice/a.flac", "alice/b.ogg"])
        #expect(many.payload == #"{"paths":["alice/a.flac","alice/b.ogg"]}"# && many.uniqueKey == nil)
        #expect(try LinkRecordingJobHandler.draft(recordingIDs: [7]).payload == #"{"recording":7}"#)
        #expect(try LinkRecordingJobHandler.draft(recordingIDs: [7, 9]).payload == #"{"recordings":[7,9]}"#)
        let since = try LinksAfterSyncJobHandler.draft(since: Date(timeIntervalSince1970: 1_800_000_000.5))
        #expect(since.kind == "links.after-sync" && since.payload == #"{"since":1800000000500}"#)
        let revalidate = try RevalidateLinksJobHandler.draft(priority: JobPriority.interactive)
        #expect(revalidate.kind == "links.revalidate" && revalidate.payload == "{}" && revalidate.uniqueKey == "links.revalidate")
        #expect(try NoopJob.draft(.init(sleepMilliseconds: 5)).payload == #"{"sleepMilliseconds":5}"#)
    }

    @Test func resultsKeepTheirKeysAndTypes() throws {
        let sync = CalendarSyncJob.Result(
            account: 1, calendars: 2, fullSyncs: 1, inserted: 3, updated: 4, deleted: 5, unchanged: 6, requests: 7, meetingsTouched: 8,
            warnings: ["w"])
        let syncJSON = try JSONValue.parse(try #require(try CalendarSyncJob.storedResult(sync)))
        for key in ["account", "calendars", "fullSyncs", "inserted", "updated", "deleted", "unchanged", "requests", "meetingsTouched"] {
            #expect(syncJSON[key]?.intValue != nil, "\(key)")
        }
        #expect(syncJSON["warnings"] == ["w"])
        #expect(try NoopJob.storedResult(.init(attempt: 2, sleptMilliseconds: 5)) == #"{"attempt":2,"sleptMilliseconds":5}"#)
        let link = try JSONValue.parse(
            try #require(try LinkRecordingJob.storedResult(.init(recordings: 1, batch: 3, changedInBatch: 2, links: ["5": .ambiguous]))))
        #expect(link == ["recordings": 1, "batch": 3, "changedInBatch": 2, "links": ["5": "ambiguous"]])
        #expect(try RevalidateLinksJob.storedResult(["kept": 2, "newly-linked": 0]) == #"{"kept":2,"newly-linked":0}"#)
        // A result that is JSON null is stored as no result.
        #expect(try ProbeJob.storedResult(nil) == nil)
    }

    @Test func payloadsQueuedByEarlierVersionsRead() throws {
        #expect(try CalendarSyncJob.payload(of: job("calendar.sync", #"{"account": 42}"#)).account == 42)
        #expect(try IngestJobHandler.paths(of: job("ingest", #"{"path":"alice/a.flac"}"#)) == ["alice/a.flac"])
        #expect(try IngestJobHandler.paths(of: job("ingest", #"{"paths":["a/1.wav","a/2.wav"]}"#)) == ["a/1.wav", "a/2.wav"])
        #expect(LinkRecordingJobHandler.recordingIDs(of: job("link", #"{"recording":5}"#)) == [5])
        #expect(try LinksAfterSyncJob.payload(of: job("links.after-sync", #"{"since":1800000000500}"#)).since == 1_800_000_000_500)
        #expect(try NoopJob.payload(of: job("system.noop", #"{"failTimes":1}"#)) == NoopJob.Payload(failTimes: 1))
        // A scheduled revalidation's payload comes from the configuration: extra keys are ignored.
        _ = try RevalidateLinksJob.payload(of: job("links.revalidate", #"{"note":"nightly"}"#))
    }

    @Test func aPayloadThatDoesNotReadIsAPermanentErrorNamingTheField() {
        #expect(throws: JobError.permanent(#"the calendar.sync payload does not read: payload.account: missing: {"acount":1}"#)) {
            try CalendarSyncJob.payload(of: job("calendar.sync", #"{"acount":1}"#))
        }
        #expect(throws: JobError.self) { try IngestJobHandler.paths(of: job("ingest", #"{"paths":[]}"#)) }
        #expect(throws: JobError.self) { try IngestJobHandler.paths(of: job("ingest", "not json")) }
        #expect(LinkRecordingJobHandler.recordingIDs(of: job("link", #"{"recordings":[1,"x"]}"#)) == nil)
    }
}
