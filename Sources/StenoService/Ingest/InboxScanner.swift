#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoCore

/// A file's size and modification time, as the settle check compares them.
struct FileSignature: Sendable, Hashable {
    var size: Int64
    var modifiedMilliseconds: Int64

    /// The signature of a regular file (following a symlink), or nil if there is none.
    init?(path: String) {
        var info = stat()
        guard stat(FileSystemPath.bytes(path), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        size = Int64(info.st_size)
        modifiedMilliseconds = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
    }

    init(size: Int64, modifiedMilliseconds: Int64) {
        self.size = size
        self.modifiedMilliseconds = modifiedMilliseconds
    }

    /// How long ago the file was last modified, as of `now` (zero for an mtime in the future).
    func age(at now: Date) -> Duration {
        let milliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down)) - modifiedMilliseconds
        return .milliseconds(max(0, milliseconds))
    }
}

/// Walks the inbox tree: every file worth ingesting with its signature, and every folder
/// (for inotify watches). Hidden folders and litter are not entered.
enum InboxScanner {
    struct Result {
        var files: [String: FileSignature] = [:]
        var folders: [String] = []
    }

    /// Scans below `inbox`; `relativeFolder` limits the walk to one subtree.
    ///
    /// `willList` is told each folder just before its entries are read: a watcher places its
    /// inotify watch there, so a file created while the tree is walked is either listed or
    /// reported by an event (watching after the walk missed the files created in between).
    static func scan(
        inbox: String, relativeFolder: String = "", maxEntries: Int = 5_000_000, willList: (String) -> Void = { _ in }
    ) -> Result {
        var result = Result()
        var stack = [relativeFolder]
        var visited = 0
        while let folder = stack.popLast(), visited < maxEntries {
            result.folders.append(folder)
            willList(folder)
            let absolute = folder.isEmpty ? inbox : inbox + "/" + folder
            guard let directory = opendir(FileSystemPath.bytes(absolute)) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                visited += 1
                // Names that are not UTF-8 are kept, escaped, rather than mangled into names
                // that do not exist.
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in InboxPath.escapedName(raw.prefix { $0 != 0 }) }
                if name == "." || name == ".." || InboxPath.isIgnoredComponent(name) { continue }
                let relative = folder.isEmpty ? name : folder + "/" + name
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_DIR):
                    stack.append(relative)
                case Int32(DT_REG), Int32(DT_LNK), Int32(DT_UNKNOWN):
                    var info = stat()
                    if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN), lstat(FileSystemPath.bytes(absolute + "/" + name), &info) == 0,
                        (info.st_mode & S_IFMT) == S_IFDIR
                    {
                        stack.append(relative)
                        continue
                    }
                    guard InboxPath.kind(of: relative) != .ignored else { continue }
                    // A symlink's own signature is recorded even when it leads outside: the
                    // ingestor refuses it with a reason.
                    result.files[relative] = FileSignature(path: absolute + "/" + name) ?? FileSignature(size: -1, modifiedMilliseconds: 0)
                default:
                    continue
                }
            }
        }
        return result
    }
}
