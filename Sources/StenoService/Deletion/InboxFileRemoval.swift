#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoCore

/// Removes a file of the inbox by its inbox-relative path (or moves it to an archive folder),
/// and nothing else: not a path that leaves the inbox by name (`..`) or through a symlinked
/// folder, not a folder.
enum InboxFileRemoval {
    enum Outcome: Sendable, Hashable {
        /// The file was removed.
        case removed
        /// The file was moved to this absolute path in the archive.
        case archived(String)
        /// Nothing was at the path (removed before, by someone or an earlier attempt).
        case absent
        /// The path does not name a file inside the inbox; left alone, with why.
        case outside(String)
    }

    /// Why a file inside the inbox could not be removed (the attempt is retried).
    struct Failure: Error, Sendable, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot remove \(path): \(reason)" }
    }

    /// Where the folders of the inbox really are, resolved once for a batch of removals (a
    /// recording's file and its companions share a folder; a batch mostly shares a few).
    struct Folders {
        /// Resolved folder, or the `errno` of its resolution, by absolute folder path.
        private var resolved: [String: Result<String, Failure>] = [:]
        /// Folders that do not exist (so nothing in them does).
        private var absent: Set<String> = []

        init() {}

        /// `folder` resolved; nil when it does not exist.
        mutating func resolve(_ folder: String) throws -> String? {
            if absent.contains(folder) { return nil }
            if let known = resolved[folder] { return try known.get() }
            guard let real = Inbox.resolved(folder) else {
                if errno == ENOENT {
                    absent.insert(folder)
                    return nil
                }
                let failure = Failure(path: folder, reason: String(cString: strerror(errno)))
                resolved[folder] = .failure(failure)
                throw failure
            }
            resolved[folder] = .success(real)
            return real
        }
    }

    /// Removes the file at `relative`, or with `archive` moves it to the same relative path
    /// under that folder (beside an archived file of the same name, under a numbered name).
    static func remove(_ relative: String, in inbox: Inbox, archivingTo archive: String? = nil) throws -> Outcome {
        var folders = Folders()
        return try remove(relative, withCompanions: false, in: inbox, archivingTo: archive, folders: &folders).first?.outcome ?? .absent
    }

    /// Removes (or archives) the file at `relative` and, with `withCompanions`, its sidecar and
    /// transcripts beside it, with the folders resolved so far: the outcome of each file that
    /// was there (a file absent is left out), or the one reason the lot is left alone.
    static func remove(
        _ relative: String, withCompanions: Bool, in inbox: Inbox, archivingTo archive: String?, folders: inout Folders
    ) throws -> [(path: String, outcome: Outcome)] {
        guard let normalized = Inbox.normalized(relative), normalized == relative else {
            return [(relative, .outside("\(relative) is not a path inside the inbox"))]
        }
        let slash = normalized.lastIndex(of: "/")
        let prefix = slash.map { String(normalized[...$0]) } ?? ""
        let name = slash.map { String(normalized[normalized.index(after: $0)...]) } ?? normalized
        guard let resolvedFolder = try folders.resolve(slash.map { inbox.root + "/" + normalized[..<$0] } ?? inbox.root) else { return [] }
        guard resolvedFolder == inbox.root || resolvedFolder.hasPrefix(inbox.root + "/") else {
            return [(relative, .outside("its folder leads out of the inbox, to \(resolvedFolder)"))]
        }
        var outcomes: [(path: String, outcome: Outcome)] = []
        for file in withCompanions ? [name] + InboxPath.companions(of: name) : [name] {
            let target = resolvedFolder + "/" + file
            var status = stat()
            guard lstat(FileSystemPath.bytes(target), &status) == 0 else {
                if errno == ENOENT { continue }
                throw Failure(path: target, reason: String(cString: strerror(errno)))
            }
            guard (status.st_mode & S_IFMT) != S_IFDIR else {
                outcomes.append((prefix + file, .outside("\(target) is a folder")))
                continue
            }
            if let archive {
                outcomes.append((prefix + file, try move(target, to: archive + "/" + prefix + file)))
                continue
            }
            // A symlink itself is removed, never what it points to.
            guard unlink(FileSystemPath.bytes(target)) == 0 else {
                if errno == ENOENT { continue }
                throw Failure(path: target, reason: String(cString: strerror(errno)))
            }
            outcomes.append((prefix + file, .removed))
        }
        return outcomes
    }

    /// Moves `source` to `destination`, or to the first free numbered name beside it (an
    /// archived file is never overwritten): renamed within a file system; across two, copied
    /// under a partial name, renamed, then removed (a crash between the last two steps leaves
    /// a second copy in the archive, never none).
    private static func move(_ source: String, to destination: String) throws -> Outcome {
        let folder = (destination as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(path: folder, reason: "cannot create the archive folder: \(error.localizedDescription)")
        }
        let name = (destination as NSString).lastPathComponent as NSString
        let suffix = name.pathExtension.isEmpty ? "" : "." + name.pathExtension
        var target = destination
        var existing = stat()
        var number = 1
        while lstat(FileSystemPath.bytes(target), &existing) == 0 {
            number += 1
            guard number <= 10_000 else { throw Failure(path: destination, reason: "10,000 archived files have its name already") }
            target = folder + "/" + name.deletingPathExtension + "-\(number)" + suffix
        }
        if rename(FileSystemPath.bytes(source), FileSystemPath.bytes(target)) == 0 { return .archived(target) }
        guard errno == EXDEV else { throw Failure(path: source, reason: String(cString: strerror(errno))) }
        let partial = target + ".partial"
        do {
            try? FileManager.default.removeItem(atPath: partial)
            try FileManager.default.copyItem(atPath: source, toPath: partial)
            try FileManager.default.moveItem(atPath: partial, toPath: target)
        } catch {
            throw Failure(path: source, reason: "cannot copy it to the archive: \(error.localizedDescription)")
        }
        guard unlink(FileSystemPath.bytes(source)) == 0 || errno == ENOENT else {
            throw Failure(path: source, reason: String(cString: strerror(errno)))
        }
        return .archived(target)
    }
}
