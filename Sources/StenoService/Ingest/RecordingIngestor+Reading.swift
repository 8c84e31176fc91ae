#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import NIOPosix
import StenoCatalog
import StenoCore
import StenoMedia

extension RecordingIngestor {
    /// What reading a path found, before anything is stored.
    enum Reading: Sendable, Hashable {
        /// An outcome to catalogue (ready, or failed with the reason).
        case record(IngestRecord)
        /// The file at this path is gone.
        case gone(String)
        /// Not something to catalogue (litter, temporary, a folder), with why.
        case ignored(String)
        /// A sidecar or transcript: these recording paths should be read again to pair it.
        case belongsTo([String])
        /// A large file that must wait for a share of the workers (``LargeReadShare``): read
        /// again later, with why.
        case deferred(String)
    }

    /// Reads inbox paths (relative to the inbox) without storing anything: what the catalog
    /// knows of them in one read, hashing and parsing concurrently off Swift's cooperative
    /// threads, owners looked up once per batch. One result per path, in order; an error
    /// (`IngestError` for a path outside the inbox, a catalog failure) is that path's alone.
    /// A passing failure is a `TransientIngestError` to retry, except for the paths on their
    /// `lastAttempt` that have no recording yet: those are catalogued `failed` with the reason,
    /// so a file whose job gives up does not vanish without a trace — unless the daemon itself
    /// ran out of descriptors or memory, which says nothing about the file (``IngestPlan``
    /// postpones those).
    func read(_ relativePaths: [String], now: Date, lastAttempt: Set<String> = []) async -> [Result<Reading, any Error>] {
        let normalized = relativePaths.map(Inbox.normalized)
        let known: [String: PathState]
        let folderOwners: [String: FolderOwner]
        do {
            known = try await store.pathStates(normalized.compactMap { $0 })
            folderOwners = try await self.folderOwners()
        } catch {
            return relativePaths.map { _ in .failure(error) }
        }
        var work: [(index: Int, path: String, known: PathState?)] = []
        let slots = ResultSlots<Examined>(count: relativePaths.count)
        for (index, relative) in normalized.enumerated() {
            if let relative {
                work.append((index, relative, known[relative]))
            } else {
                slots.set(index, .failure(IngestError.permanent("\"\(relativePaths[index])\" is not a path inside the inbox")))
            }
        }
        // Reading whole files blocks: keep it off Swift's few cooperative threads, one share of
        // the batch per thread of the pool, each share in one hop. Results go straight into
        // their slots, so no large value crosses a task boundary.
        let shares = min(work.count, max(1, System.coreCount))
        await withTaskGroup(of: Void.self) { group in
            for share in 0..<shares {
                let items = stride(from: share, to: work.count, by: shares).map { work[$0] }
                group.addTask {
                    do {
                        try await NIOThreadPool.singleton.runIfActive {
                            for item in items {
                                slots.set(item.index, .success(self.examine(item.path, known: item.known, owners: folderOwners, now: now)))
                            }
                        }
                    } catch {
                        for item in items where !slots.isSet(item.index) { slots.set(item.index, .failure(error)) }
                    }
                }
            }
        }
        let examined = slots.values { .failure(IngestError.permanent("\"\(relativePaths[$0])\" was not examined")) }
        var owners: [OwnerKey: Int64?] = [:]
        var readings: [Result<Reading, any Error>] = []
        readings.reserveCapacity(examined.count)
        for (index, result) in examined.enumerated() {
            var result = result
            if case .success(.retry(let error)) = result, !error.isExhaustion, lastAttempt.contains(relativePaths[index]), known[error.path] == nil {
                result = .success(.failed(path: error.path, size: 0, modified: now, reason: error.reason + " (gave up retrying)"))
            }
            do {
                readings.append(.success(try await reading(try result.get(), folderOwners: folderOwners, owners: &owners, now: now)))
            } catch {
                readings.append(.failure(error))
            }
        }
        return readings
    }

    /// What examining one file found; the owner is decided afterwards, for the whole batch.
    private enum Examined: Sendable {
        /// Nothing to read.
        case done(Reading)
        /// The file cannot be catalogued, for this reason.
        case failed(path: String, size: Int64, modified: Date, reason: String)
        /// The file cannot be read now, for a reason that passes: the job retries.
        case retry(TransientIngestError)
        /// A large file with no share of the workers free now.
        case deferred(path: String, reason: String)
        /// Hashed (or known unchanged) and parsed.
        case read(
            path: String, size: Int64, modified: Date, hash: ContentHash, media: Result<MediaInfo, MediaError>,
            companions: Companions, fileUID: uid_t)
    }

    /// A file's content hash, or where the catalog has it.
    private enum ContentHash: Sendable {
        case computed(String)
        /// Same size and mtime as when this recording was read from the path.
        case unchanged(recordingID: Int64)
    }

    /// Examines one path, blocking: its kind, what is at it (refusing symlinks out of the
    /// inbox), and for a recording its hash (unless unchanged since last read), container and
    /// companions. Runs on the thread pool.
    private func examine(_ relative: String, known: PathState?, owners: [String: FolderOwner], now: Date) -> Examined {
        let absolute = inbox.absolute(relative)
        switch InboxPath.kind(of: relative) {
        case .ignored:
            return .done(.ignored("temporary, hidden or system file"))
        case .sidecar, .transcript:
            return .done(.belongsTo(siblingRecordings(of: relative)))
        case .recording:
            break
        }
        var info = stat()
        guard lstat(FileSystemPath.bytes(absolute), &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .done(.gone(relative)) }
            let reason = "cannot examine the file: \(String(cString: strerror(code)))"
            if TransientIngestError.isPassing(code) { return .retry(TransientIngestError(path: relative, reason: reason, code: code)) }
            return .failed(path: relative, size: 0, modified: now, reason: reason)
        }
        // Who dropped the file: for a symlink, the link's owner, not its target's.
        let fileUID = info.st_uid
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard let target = Inbox.resolved(absolute) else {
                let code = errno
                if TransientIngestError.isPassing(code) {
                    return .retry(
                        TransientIngestError(path: relative, reason: "cannot follow the symlink: \(String(cString: strerror(code)))", code: code))
                }
                return .failed(path: relative, size: 0, modified: now, reason: "broken symlink")
            }
            guard stat(FileSystemPath.bytes(target), &info) == 0 else { return .done(.gone(relative)) }
            if let refusal = refusal(ofLink: relative, to: target, targetInfo: info, linkUID: fileUID, owners: owners) {
                return .failed(path: relative, size: 0, modified: now, reason: refusal)
            }
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .done(.ignored("not a regular file")) }
        let size = Int64(info.st_size)
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        let hash: ContentHash
        var contents: [UInt8]?
        if let known, known.isPresent, known.size == size,
            known.modifiedMilliseconds == Int64((modified.timeIntervalSince1970 * 1000).rounded())
        {
            // Same size and mtime as when last read: reading the companions again is enough.
            hash = .unchanged(recordingID: known.recordingID)
        } else {
            let folder = InboxPath.ownerFolder(of: relative)?.lowercased() ?? ""
            let admission = largeReads.admit(folder: folder, size: size)
            if case .full = admission {
                return .deferred(
                    path: relative,
                    reason: "waiting for a share of the workers: another large file of \(folder.isEmpty ? "the inbox" : folder + "/") or "
                        + "\(largeReads.limit) large file(s) in all are being read")
            }
            defer { largeReads.release(admission) }
            do {
                let read = try hashFile(absolute, ContentHasher.keptSize)
                hash = .computed(read.hex)
                contents = read.contents
            } catch {
                if TransientIngestError.isPassing(error.code) {
                    return .retry(TransientIngestError(path: relative, reason: error.description, code: error.code))
                }
                return .failed(path: relative, size: size, modified: modified, reason: error.description)
            }
        }
        // A parse failure is an outcome, not an error. A small file is parsed from the bytes
        // just hashed: no second open, and the metadata describes exactly the hashed content.
        let media = Result { () throws(MediaError) in
            if let contents { return try MediaProbe.probe(MemoryByteSource(contents)) }
            return try FileSystemPath.probe(absolute)
        }
        if case .failure(let error) = media, error.kind == .io, TransientIngestError.isPassing(error.systemErrorCode) {
            return .retry(TransientIngestError(path: relative, reason: error.description, code: error.systemErrorCode))
        }
        return .read(
            path: relative, size: size, modified: modified, hash: hash, media: media,
            companions: readCompanions(of: relative, owners: owners), fileUID: fileUID)
    }

    /// The reading of an examined file, with its owner decided.
    private func reading(
        _ examined: Examined, folderOwners: [String: FolderOwner], owners: inout [OwnerKey: Int64?], now: Date
    ) async throws -> Reading {
        switch examined {
        case .done(let reading):
            return reading
        case .retry(let error):
            throw error
        case .deferred(_, let reason):
            return .deferred(reason)
        case .failed(let path, let size, let modified, let reason):
            let owner = try await owner(of: path, sidecarOwner: nil, fileUID: nil, cache: &owners)
            return .record(
                IngestRecord(
                    path: path, size: size, modified: modified, contentHash: nil, ownerID: owner,
                    outcome: .failed(reason: reason), now: now))
        case .read(let path, let size, let modified, let contentHash, let media, let companions, let fileUID):
            let hash: String
            switch contentHash {
            case .computed(let computed):
                hash = computed
            case .unchanged(let recordingID):
                if let stored = try await store.recording(id: recordingID, visibleTo: nil).contentHash {
                    hash = stored
                } else {
                    // Catalogued without a hash (it could not be read then): read it now.
                    do {
                        hash = try await NIOThreadPool.singleton.runIfActive {
                            try self.hashFile(self.inbox.absolute(path), 0).hex
                        }
                    } catch let error as ContentHasher.Failure {
                        if TransientIngestError.isPassing(error.code) { throw TransientIngestError(path: path, reason: error.description, code: error.code) }
                        return try await reading(
                            .failed(path: path, size: size, modified: modified, reason: error.description), folderOwners: folderOwners,
                            owners: &owners, now: now)
                    }
                }
            }
            let sidecarOwner = await honouredSidecarOwner(companions.sidecar?.owner, of: path, owners: folderOwners, fileUID: fileUID)
            let owner = try await owner(of: path, sidecarOwner: sidecarOwner, fileUID: fileUID, cache: &owners)
            let outcome: IngestRecord.Outcome
            switch media {
            case .success(let media):
                outcome = .ready(metadata(media: media, companions: companions, fileName: path, modified: modified))
            case .failure(let error):
                outcome = .failed(reason: error.description)
            }
            return .record(
                IngestRecord(path: path, size: size, modified: modified, contentHash: hash, ownerID: owner, outcome: outcome, now: now))
        }
    }

    /// What decides a file's owner.
    struct OwnerKey: Hashable {
        var sidecarOwner: String?
        var folder: String?
        var fileUID: uid_t?
    }

    /// The sidecar's owner email, else the inbox folder's user, else the file owner's uid;
    /// looked up once per batch for files that share all three.
    private func owner(of path: String, sidecarOwner: String?, fileUID: uid_t?, cache: inout [OwnerKey: Int64?]) async throws -> Int64? {
        let folder = InboxPath.ownerFolder(of: path)
        let key = OwnerKey(sidecarOwner: sidecarOwner, folder: folder, fileUID: fileUID)
        if let known = cache[key] { return known }
        var owner: Int64?
        if let email = sidecarOwner, let user = try? await store.user(matching: email) {
            owner = user.id
        } else if let folder, let user = try? await store.user(matching: folder), user.name.lowercased() == folder.lowercased() {
            owner = user.id
        } else if let fileUID, let user = try await store.user(forUID: fileUID) {
            owner = user.id
        }
        cache[key] = .some(owner)
        return owner
    }
}
