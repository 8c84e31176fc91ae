#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `system.doctor`: what an operator would check on the daemon's machine, each problem with
/// its fix. Admins only: it names paths, groups and other people's folders.
struct SystemDoctor: Sendable {
    let store: any CatalogStore
    let configuration: StenoConfiguration
    /// The secrets key file this daemon uses.
    let secretKeyPath: String
    /// Free space below this many bytes (or 2 % of the file system) is a problem.
    var minimumFreeBytes: UInt64 = 512 << 20
    /// Dead jobs older than this are history, not a problem.
    var deadJobWindow: TimeInterval = 7 * 86_400

    func register(in table: inout RPCMethodTable) {
        let doctor = self
        table.register(StenoMethods.systemDoctor, access: .admin) { _, _ in
            DoctorReport(checks: try await doctor.checks())
        }
    }

    func checks() async throws -> [DoctorCheck] {
        var checks = [try await catalog(), try await secretKey(), socket()]
        checks += diskSpace()
        checks += try await inbox()
        checks.append(try await deadJobs())
        return checks
    }

    func catalog() async throws -> DoctorCheck {
        let statistics = try await store.statistics()
        return .ok("catalog", "\(statistics.location), schema \(statistics.schemaVersion)")
    }

    /// The key that opens every account's sealed credentials: present when accounts need it,
    /// the daemon's alone.
    func secretKey() async throws -> DoctorCheck {
        var info = stat()
        guard stat(secretKeyPath, &info) == 0 else {
            let sealed = try await store.accountsWithSealedSecrets()
            if sealed.isEmpty { return .ok("secret key", "\(secretKeyPath) is created when an account first stores credentials") }
            return .problem(
                "secret key", "\(secretKeyPath) is missing, but \(sealed.count) account(s) hold credentials sealed with it",
                fix: "restore \(secretKeyPath) from a backup (mode 0600), or start stenod --forget-credentials and renew each account with steno accounts update ID")
        }
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 {
            return .problem(
                "secret key", "\(secretKeyPath) has mode \(Self.octal(mode)): other users may read the key to every stored credential",
                fix: "chmod 600 \(secretKeyPath) (and consider the credentials exposed: renew them with steno accounts update ID)")
        }
        if info.st_uid != geteuid() {
            return .problem(
                "secret key", "\(secretKeyPath) belongs to uid \(info.st_uid), not to the daemon's user (uid \(geteuid()))",
                fix: "chown \(geteuid()) \(secretKeyPath)")
        }
        return .ok("secret key", "\(secretKeyPath), mode \(Self.octal(mode)), the daemon's own")
    }

    /// The socket: members of `socket_group` must be able to open it.
    func socket() -> DoctorCheck {
        let path = configuration.socketPath
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .problem("socket", "\(path) does not exist (socket activation?)", fix: "restart stenod; check its log")
        }
        let mode = info.st_mode & 0o777
        guard let group = configuration.socketGroup else {
            return .ok("socket", "\(path), mode \(Self.octal(mode)); no socket_group: only the daemon's own group may connect")
        }
        guard let gid = UnixSocketListener.groupID(group) else {
            return .problem("socket", "socket_group \(group) does not exist", fix: "groupadd \(group), or correct socket_group in stenod.toml")
        }
        if info.st_gid != gid || mode & 0o060 != 0o060 {
            return .problem(
                "socket", "\(path) is group \(info.st_gid) mode \(Self.octal(mode)): members of \(group) cannot connect",
                fix: "chgrp \(group) \(path) && chmod 660 \(path) (stenod does this itself at start: restart it)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        if stat(folder, &info) == 0, info.st_mode & 0o001 == 0, !(info.st_gid == gid && info.st_mode & 0o010 != 0) {
            return .problem(
                "socket", "members of \(group) cannot pass through \(folder) (mode \(Self.octal(info.st_mode & 0o777)))",
                fix: "chgrp \(group) \(folder) && chmod 0750 \(folder)")
        }
        return .ok("socket", "\(path), group \(group), mode \(Self.octal(mode))")
    }

    /// Free space where the catalog and the inbox live.
    func diskSpace() -> [DoctorCheck] {
        var places = [("data folder", configuration.dataDirectory), ("inbox", configuration.inboxDirectory)]
        if configuration.postgres != nil { places.removeFirst() }
        var seen = Set<UInt>()
        return places.compactMap { what, path in
            var info = statvfs()
            guard statvfs(path, &info) == 0 else { return nil }
            guard seen.insert(info.f_fsid).inserted else { return nil }
            let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
            let total = UInt64(info.f_blocks) * UInt64(info.f_frsize)
            let text = "\(ByteCountText.binary(free)) free of \(ByteCountText.binary(total)) at \(path) (\(what))"
            if free < minimumFreeBytes || (total > 0 && free * 50 < total) {
                return .problem("disk space", text, fix: "free space on the file system of \(path), or move the \(what) to a larger one")
            }
            return .ok("disk space", text)
        }
    }

    /// The inbox: readable by the daemon, passable by the team, and each user with a uid has a
    /// folder they can write to and the daemon can read.
    func inbox() async throws -> [DoctorCheck] {
        let inbox = configuration.inboxDirectory
        var info = stat()
        guard stat(inbox, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            return [.problem("inbox", "\(inbox) is not a folder", fix: "install -d -m 0710 \(inbox) (owned by the daemon's user, group the team's)")]
        }
        guard access(inbox, R_OK | X_OK) == 0 else {
            return [.problem("inbox", "the daemon cannot list \(inbox)", fix: "chown \(geteuid()) \(inbox) && chmod u+rx \(inbox)")]
        }
        var checks: [DoctorCheck] = []
        let teamGID = configuration.socketGroup.flatMap(UnixSocketListener.groupID)
        if let group = configuration.socketGroup, let teamGID, info.st_mode & 0o001 == 0, !(info.st_gid == teamGID && info.st_mode & 0o010 != 0) {
            checks.append(.problem(
                "inbox", "members of \(group) cannot reach their folders in \(inbox) (group \(info.st_gid), mode \(Self.octal(info.st_mode & 0o777)))",
                fix: "chgrp \(group) \(inbox) && chmod 0710 \(inbox)"))
        } else {
            checks.append(.ok("inbox", "\(inbox), mode \(Self.octal(info.st_mode & 0o777))"))
        }
        for user in try await store.users(afterID: nil, limit: 10_000) where !user.uids.isEmpty {
            checks.append(folderCheck(inbox + "/" + user.name, user: user))
        }
        return checks
    }

    /// A user's inbox folder: theirs to write, the daemon's to read.
    func folderCheck(_ folder: String, user: User) -> DoctorCheck {
        let name = "inbox of \(user.name)"
        let owner = user.uids[0]
        let create = "install -d -o \(owner) -g \(getegid()) -m 2750 \(folder)"
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            return .problem(name, "\(folder) does not exist: \(user.name) has nowhere to drop recordings", fix: create)
        }
        let mode = info.st_mode & 0o777
        let writable = user.uids.contains { uid in
            uid == 0 || (info.st_uid == uid && mode & 0o300 == 0o300)
                || (RecordingIngestor.groups(of: uid).contains(info.st_gid) && mode & 0o030 == 0o030) || mode & 0o003 == 0o003
        }
        guard writable else {
            return .problem(
                name, "\(user.name) (uid \(user.uids.map(String.init).joined(separator: ", "))) cannot write to \(folder) (owner \(info.st_uid), mode \(Self.octal(mode)))",
                fix: "chown \(owner) \(folder) && chmod u+rwx \(folder)")
        }
        guard access(folder, R_OK | X_OK) == 0 else {
            return .problem(
                name, "the daemon cannot read \(folder) (group \(info.st_gid), mode \(Self.octal(mode)))",
                fix: "chgrp \(getegid()) \(folder) && chmod 2750 \(folder)")
        }
        return .ok(name, "\(folder), owner \(info.st_uid), mode \(Self.octal(mode))")
    }

    /// Jobs that gave up in the last week and were not followed by a later run of the same work.
    func deadJobs(now: Date = Date()) async throws -> DoctorCheck {
        let recent = try await store.jobs(state: .dead, kind: nil, afterID: nil, limit: 1000)
            .filter { ($0.finishedAt ?? $0.updatedAt) > now.addingTimeInterval(-deadJobWindow) }
        var later: [String: Int64] = [:]
        for kind in Set(recent.map(\.kind)) {
            let after = recent.filter { $0.kind == kind }.map(\.id).min() ?? 0
            for job in try await store.jobs(state: nil, kind: kind, afterID: after, limit: 10_000) {
                if let key = job.uniqueKey { later[key] = max(later[key] ?? 0, job.id) }
            }
        }
        let open = recent.filter { job in job.uniqueKey.map { (later[$0] ?? 0) <= job.id } ?? true }
        guard let last = open.max(by: { $0.id < $1.id }) else {
            // Dead jobs whose work ran again since are no problem, but they are still listed.
            return .ok(
                "dead jobs",
                recent.isEmpty
                    ? "none in the last 7 days"
                    : "none open: \(recent.count) gave up in the last 7 days and each was run again since (steno jobs --state dead lists them)")
        }
        let kinds = Dictionary(grouping: open, by: \.kind).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
        return .problem(
            "dead jobs", "\(open.count) job(s) gave up in the last 7 days (\(kinds)); the latest, \(last.id): \(last.lastError ?? "no error recorded")",
            fix: "steno jobs --state dead shows why; fix the cause, then steno jobs retry ID")
    }

    static func octal(_ mode: mode_t) -> String { "0" + String(mode, radix: 8) }
}
