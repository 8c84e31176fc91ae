#if canImport(Glibc)
import Glibc
#endif

/// Why this user may not open the daemon's socket, and what fixes it: the folder or the socket
/// that stops them, and whether they lack the group or the group lacks the permission.
public struct SocketDenial: Sendable, Equatable, CustomStringConvertible {
    /// A file on the way to the socket: its path, mode bits, and group.
    public struct Step: Sendable, Equatable {
        public var path: String
        public var mode: UInt32
        public var ownerUID: UInt32
        public var group: UInt32
        public var groupName: String

        public init(path: String, mode: UInt32, ownerUID: UInt32, group: UInt32, groupName: String) {
            self.path = path
            self.mode = mode
            self.ownerUID = ownerUID
            self.group = group
            self.groupName = groupName
        }
    }

    /// The file that refuses, and whether it is the socket (needing write) or a folder (search).
    public var step: Step?
    public var isSocket: Bool
    /// Whether the user is in the file's group.
    public var inGroup: Bool

    public init(step: Step?, isSocket: Bool, inGroup: Bool) {
        self.step = step
        self.isSocket = isSocket
        self.inGroup = inGroup
    }

    public var description: String {
        guard let step else { return "ask an admin to add you to the socket's group (socket_group in stenod.toml)" }
        let mode = "0" + String(step.mode & 0o7777, radix: 8)
        let what = isSocket ? "the socket (mode \(mode), group \(step.groupName))" : "its folder \(step.path) (mode \(mode), group \(step.groupName))"
        let groupMay = isSocket ? step.mode & 0o020 != 0 : step.mode & 0o010 != 0
        let join = "ask an admin to add you to group \(step.groupName) (usermod -aG \(step.groupName) YOUR-NAME, then log in again)"
        let widen =
            isSocket
            ? "an admin sets socket_mode = \"0660\" in stenod.toml and restarts stenod"
            : "an admin lets the group through (chmod g+x \(step.path); for /run/steno, RuntimeDirectoryMode=0750 in the unit)"
        switch (inGroup, groupMay) {
        case (true, false): return "\(what) lets only its owner in, though you are in its group: \(widen)"
        case (false, true): return "\(what) is for its group, and you are not in it: \(join)"
        case (false, false): return "\(what) lets only its owner in, and you are not in its group: \(widen), and \(join)"
        case (true, true): return "\(what) should let you in as one of its group; log in again if you were added to it lately"
        }
    }

    /// The denial for this process on `path`: the first folder it cannot pass, else the socket.
    static func diagnose(_ path: String) -> SocketDenial {
        let groups = Self.processGroups()
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        for part in parts {
            prefix += "/" + part
            guard let step = Self.step(prefix) else { continue }
            if access(prefix, X_OK) != 0 { return SocketDenial(step: step, isSocket: false, inGroup: groups.contains(step.group)) }
        }
        guard let step = Self.step(path) else { return SocketDenial(step: nil, isSocket: true, inGroup: false) }
        return SocketDenial(step: step, isSocket: true, inGroup: groups.contains(step.group))
    }

    private static func step(_ path: String) -> Step? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Step(path: path, mode: UInt32(info.st_mode), ownerUID: info.st_uid, group: info.st_gid, groupName: groupName(info.st_gid))
    }

    /// The effective group and the supplementary ones.
    private static func processGroups() -> Set<UInt32> {
        var groups = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(groups.count), &groups)
        return Set(groups.prefix(max(0, Int(count)))).union([getegid()])
    }

    static func groupName(_ gid: gid_t) -> String {
        var entry = group()
        var found: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.gr_name else { return String(gid) }
        return String(cString: name)
    }
}
