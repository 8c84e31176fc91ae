import Testing

@testable import StenoCatalog

/// The ingest decisions both catalogs share: the order a file's recording is looked for, whose
/// copy may change what was catalogued, and what a path's arrival leaves to tidy.
@Suite("Ingest record choice")
struct IngestRecordChoiceTests {
    @Test func newContentIsInsertedBeforeAnythingIsLookedUp() {
        let steps = IngestRecordChoice.steps(hasContentHash: true)
        #expect(steps == [.adoptHashless, .insert, .attachToExisting, .insert])
        // The second insert covers a recording deleted between the failed insert and the lookup.
        #expect(steps.firstIndex(of: .insert)! < steps.firstIndex(of: .attachToExisting)!)
    }

    @Test func aFileWithoutAHashAttachesBeforeItStartsARecording() {
        #expect(IngestRecordChoice.steps(hasContentHash: false) == [.adoptHashless, .attachToExisting, .insert])
    }

    @Test(arguments: [
        (Int64?.none, Int64?.some(1), true),
        (Int64?.some(1), Int64?.some(1), true),
        (Int64?.some(1), Int64?.some(2), false),
        (Int64?.some(1), Int64?.none, false),
        (Int64?.none, Int64?.none, true),
    ])
    func onlyTheOwnersCopyChangesWhatWasCatalogued(owner: Int64?, ingestOwner: Int64?, updates: Bool) {
        #expect(IngestRecordChoice.updatesExisting(owner: owner, ingestOwner: ingestOwner) == updates)
    }

    @Test func aNewRecordingHasNoOtherPathToDrop() {
        #expect(IngestRecordChoice.cleanups(id: 7, isNew: true, previousOwnerOfPath: nil) == [])
        #expect(IngestRecordChoice.cleanups(id: 7, isNew: true, previousOwnerOfPath: 3) == [.markMissingIfNoPathRemains(recordingID: 3)])
    }

    @Test func aMovedFileDropsVanishedPathsAndAnOverwrittenOneChecksItsFormerRecording() {
        #expect(IngestRecordChoice.cleanups(id: 7, isNew: false, previousOwnerOfPath: 7) == [.dropVanishedPaths])
        #expect(IngestRecordChoice.cleanups(id: 7, isNew: false, previousOwnerOfPath: nil) == [.dropVanishedPaths])
        #expect(
            IngestRecordChoice.cleanups(id: 7, isNew: false, previousOwnerOfPath: 3)
                == [.dropVanishedPaths, .markMissingIfNoPathRemains(recordingID: 3)])
    }

    @Test func noRecordingNamesThePath() {
        #expect(IngestRecordChoice.noRecording(path: "a/b.m4a") == .failedPrecondition("the recording of a/b.m4a was neither inserted nor found"))
    }
}
