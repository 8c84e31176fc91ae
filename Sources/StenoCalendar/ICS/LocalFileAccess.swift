#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Whose eyes local calendar files are read with.
///
/// The daemon runs as root, so a member's ICS account must not read what the member could not:
/// every read is checked, not only the one when the account was added, because the file can
/// be swapped for a link to someone else's file at any time afterwards. A member's file is
/// opened by its resolved path without following links, and the opened file (`fstat` of the
/// descriptor, so a swap between check and read cannot slip through) and every folder on the
/// way to it must be open to one of the member's uids or to everyone. Group permissions do not
/// count: the daemon does not know the member's groups for certain.
public enum LocalFileAccess: Sendable, Hashable {
    /// Whatever the daemon can read (accounts of admins).
    case unrestricted
    /// What a person with one of these uids could read (accounts of members).
    case member(uids: Set<UInt32>)

    /// The contents of a file, at most `limit` bytes.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` naming the path when it cannot be read,
    ///   is not a regular file, is larger than `limit`, or is not readable by the member.
    public func read(_ path: String, limit: Int) throws(CalendarSyncError) -> Data {
        let descriptor = try open(path, directory: false)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw .badSource("cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= limit else { throw .badSource("\(path) is larger than \(limit >> 20) MiB") }
        return data
    }

    /// Checks that a file, or a folder's listing, may be read.
    ///
    /// - Throws: ``CalendarSyncError/badSource(_:)`` as ``read(_:limit:)``.
    public func check(_ path: String, isFolder: Bool) throws(CalendarSyncError) {
        let descriptor = try open(path, directory: isFolder)
        close(descriptor)
    }

    /// An open descriptor of the file or folder, checked for this reader.
    func open(_ path: String, directory: Bool) throws(CalendarSyncError) -> Int32 {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (directory ? O_DIRECTORY : 0)
        guard case .member(let uids) = self else {
            let descriptor = Glibc.open(path, flags)
            guard descriptor >= 0 else { throw .badSource("cannot open \(path): \(Self.lastError)") }
            return descriptor
        }
        guard let resolved = realpath(path, nil) else { throw .badSource("cannot open \(path): \(Self.lastError)") }
        let resolvedPath = String(cString: resolved)
        free(resolved)
        // O_NOFOLLOW: a link put in place after realpath is refused rather than followed.
        let descriptor = Glibc.open(resolvedPath, flags | O_NOFOLLOW)
        guard descriptor >= 0 else { throw .badSource("cannot open \(path): \(Self.lastError)") }
        do {
            try Self.check(descriptor: descriptor, path: path, directory: directory, uids: uids)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    static func check(descriptor: Int32, path: String, directory: Bool, uids: Set<UInt32>) throws(CalendarSyncError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .badSource("cannot read \(path): \(lastError)") }
        let kind = status.st_mode & S_IFMT
        guard kind == (directory ? S_IFDIR : S_IFREG) else {
            throw .badSource("\(path) is not a \(directory ? "folder" : "regular file")")
        }
        let needed: mode_t = directory ? 0o5 : 0o4
        guard allows(status, needed, uids: uids) else {
            throw .badSource("\(path) is not readable by the account's owner; members' accounts read only files they could read themselves")
        }
        // The folders on the way to what was opened (as the kernel names it now) must be traversable too.
        var opened = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(descriptor)", &opened, opened.count - 1)
        guard length > 0 else { throw .badSource("cannot read \(path): \(lastError)") }
        let openedPath = String(decoding: opened[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var folder = (openedPath as NSString).deletingLastPathComponent
        while true {
            var folderStatus = stat()
            guard lstat(folder, &folderStatus) == 0, allows(folderStatus, 0o1, uids: uids) else {
                throw .badSource("\(path) lies in \(folder), which the account's owner cannot open; members' accounts read only files they could read themselves")
            }
            if folder == "/" || folder.isEmpty { break }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    /// Whether `status` grants `needed` (written as others' bits, e.g. 0o4) to one of `uids`.
    /// The owner's bits apply to its owner, the others' bits to everyone else (as the kernel decides).
    static func allows(_ status: stat, _ needed: mode_t, uids: Set<UInt32>) -> Bool {
        if uids.contains(status.st_uid) { return status.st_mode & (needed << 6) == needed << 6 }
        return status.st_mode & needed == needed
    }

    static var lastError: String { String(cString: strerror(errno)) }
}
