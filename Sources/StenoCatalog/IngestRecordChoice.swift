/// Which recording a read file becomes part of, and what its path's arrival leaves to tidy:
/// the decisions of `recordIngest` both catalogs take in this order, each rendering only the
/// statements.
package enum IngestRecordChoice {
    /// One way of finding the file's recording, tried in ``steps(hasContentHash:)``'s order
    /// until one yields it.
    package enum Step: Sendable, Hashable {
        /// The path's file could not be read before (a failed recording without a hash): read
        /// now, it keeps that recording instead of starting a second one.
        case adoptHashless
        /// A new recording inserted whole; nothing (and no id) when its content hash is
        /// catalogued already.
        case insert
        /// Same content seen before (or, for a file without a hash, the hashless recording
        /// its path held): one recording, one more path.
        case attachToExisting
    }

    /// The order to try: new content (the common case) is inserted with nothing looked up
    /// first; content seen before attaches; a file that cannot be hashed attaches to its
    /// path's hashless recording or starts one.
    package static func steps(hasContentHash: Bool) -> [Step] {
        hasContentHash ? [.adoptHashless, .insert, .attachToExisting, .insert] : [.adoptHashless, .attachToExisting, .insert]
    }

    /// Whether an ingest that attaches to a recording owned by `owner` updates what was
    /// catalogued (title, transcript, sidecar, status): only the owner's own copy, or any copy
    /// of a recording nobody owns. Another user's copy adds its path and nothing else.
    package static func updatesExisting(owner: Int64?, ingestOwner: Int64?) -> Bool {
        owner == nil || owner == ingestOwner
    }

    /// What is tidied once the path is recorded as the recording `id`'s.
    package enum Cleanup: Sendable, Hashable {
        /// A file that moved: the recording's old, vanished paths are superseded.
        case dropVanishedPaths
        /// The path held other content before (overwritten in place): that recording is
        /// missing if no path of it remains.
        case markMissingIfNoPathRemains(recordingID: Int64)
    }

    /// The cleanups after recording the path as `id`'s (`isNew`: inserted by this ingest,
    /// which has no other path); `previousOwnerOfPath` is the recording the path held before.
    package static func cleanups(id: Int64, isNew: Bool, previousOwnerOfPath: Int64?) -> [Cleanup] {
        var cleanups: [Cleanup] = isNew ? [] : [.dropVanishedPaths]
        if let previous = previousOwnerOfPath, previous != id { cleanups.append(.markMissingIfNoPathRemains(recordingID: previous)) }
        return cleanups
    }

    /// No step yielded a recording (only a race the catalog's keys did not settle can cause it).
    package static func noRecording(path: String) -> StoreError {
        .failedPrecondition("the recording of \(path) was neither inserted nor found")
    }
}
