#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import StenoCore

extension RecordingIngestor {
    /// The user an inbox folder belongs to (`inbox/alice/…` → alice), as the rules on symlinks
    /// and sidecar owners need them; looked up once per batch, before files are examined.
    struct FolderOwner: Sendable, Hashable {
        var userID: Int64
        var name: String
        var uids: [uid_t]
        var isAdmin: Bool
    }

    /// Every user's folder, by lowercased folder name: a batch reads the user table once (a
    /// team's worth of rows), since a symlink may lead into any of their folders.
    func folderOwners() async throws -> [String: FolderOwner] {
        var owners: [String: FolderOwner] = [:]
        var after: Int64?
        while true {
            let page = try await store.users(afterID: after, limit: 500)
            for user in page {
                owners[user.name.lowercased()] = FolderOwner(userID: user.id, name: user.name, uids: user.uids, isAdmin: user.role == .admin)
            }
            guard page.count == 500, let last = page.last else { return owners }
            after = last.id
        }
    }

    /// Why the symlink at `relative` must not be followed to `target` (its real path), or nil
    /// when it may: a link is followed only to a file the one who owns the link's place could
    /// read themselves, and never into another user's inbox folder. `linkUID` is the link's
    /// own owner, who stands for the folder when the folder names no user.
    func refusal(
        ofLink relative: String, to target: String, targetInfo: stat, linkUID: uid_t, owners: [String: FolderOwner]
    ) -> String? {
        guard let targetRelative = inbox.relative(ofAbsolute: target), !targetRelative.isEmpty else {
            return "symlink leads outside the inbox (to \(target)); refused"
        }
        let folder = InboxPath.ownerFolder(of: relative)
        let owner = folder.flatMap { owners[$0.lowercased()] }
        if let targetFolder = InboxPath.ownerFolder(of: targetRelative), let targetOwner = owners[targetFolder.lowercased()],
            targetOwner.userID != owner?.userID
        {
            return "symlink leads into another user's inbox folder (\(targetFolder)/); refused"
        }
        let readers = owner.map(\.uids).flatMap { $0.isEmpty ? nil : $0 } ?? [linkUID]
        guard readers.contains(where: { Self.canRead(targetInfo, as: $0) }) else {
            return "symlink leads to a file \(owner?.name ?? "the link's owner") cannot read; refused"
        }
        return nil
    }

    /// Whether the file at `absolute` (known to exist) may be read for the recording at
    /// `relative`: yes unless it is a symlink the rules above refuse.
    func mayFollow(_ absolute: String, inFolderOf relative: String, owners: [String: FolderOwner]) -> Bool {
        var info = stat()
        guard lstat(FileSystemPath.bytes(absolute), &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return true }
        let linkUID = info.st_uid
        guard let target = Inbox.resolved(absolute), stat(FileSystemPath.bytes(target), &info) == 0 else { return false }
        return refusal(ofLink: relative, to: target, targetInfo: info, linkUID: linkUID, owners: owners) == nil
    }

    /// Whether the user with `uid` may read a file with these owner, group and mode bits.
    static func canRead(_ info: stat, as uid: uid_t) -> Bool {
        if uid == 0 { return true }
        if info.st_uid == uid { return info.st_mode & S_IRUSR != 0 }
        if groups(of: uid).contains(info.st_gid) { return info.st_mode & S_IRGRP != 0 }
        return info.st_mode & S_IROTH != 0
    }

    /// The groups of the account with `uid` (primary and supplementary), empty if it has none.
    static func groups(of uid: uid_t) -> [gid_t] {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return [] }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, entry.pw_gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, entry.pw_gid, &groups, &count) >= 0 else { return [entry.pw_gid] }
        }
        return Array(groups.prefix(Int(count)))
    }

    /// The sidecar's claimed owner when the folder's owner may act for them (an admin, or the
    /// claimed user themselves); otherwise nil, with a warning naming the file and the claim.
    func honouredSidecarOwner(_ claimed: String?, of path: String, owners: [String: FolderOwner], fileUID: uid_t?) async -> String? {
        guard let claimed else { return nil }
        // The daemon's own account and root drop files as admins.
        if InboxPath.ownerFolder(of: path) == nil, let fileUID, fileUID == 0 || fileUID == getuid() { return claimed }
        let actor: FolderOwner?
        if let folder = InboxPath.ownerFolder(of: path), let owner = owners[folder.lowercased()] {
            actor = owner
        } else if let fileUID, let user = try? await store.user(forUID: fileUID) {
            actor = FolderOwner(userID: user.id, name: user.name, uids: user.uids, isAdmin: user.role == .admin)
        } else {
            actor = nil
        }
        if let actor {
            if actor.isAdmin { return claimed }
            if let user = try? await store.user(matching: claimed), user.id == actor.userID { return claimed }
        }
        logger.warning(
            "sidecar owner ignored: only an admin's folder may give a recording to another user",
            metadata: ["path": .string(path), "claimedOwner": .string(claimed)])
        return nil
    }
}
