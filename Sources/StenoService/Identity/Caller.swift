import StenoCore

/// Who is at the other end of a socket connection, from the kernel (SO_PEERCRED): no
/// passwords travel on the socket.
public struct PeerCredentials: Sendable, Hashable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// The caller of one request: their credentials and the user and role they map to.
public struct Caller: Sendable, Hashable {
    /// The connecting process.
    public var credentials: PeerCredentials
    /// The user the uid belongs to, if any.
    public var user: User?
    /// The effective role; nil for an unknown uid. Root and the daemon's own uid are admins.
    public var role: Role?

    public init(credentials: PeerCredentials, user: User?, role: Role?) {
        self.credentials = credentials
        self.user = user
        self.role = role
    }

    public var isAdmin: Bool { role == .admin }
    public var isKnown: Bool { role != nil }
}
