#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// Layout of Linux's `struct ucred`, which Swift does not import.
private struct UCred {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

/// Reads the kernel's credentials of the process at the other end of a Unix socket.
enum PeerCredentialsReader {
    /// The peer's pid, uid and gid, read with `SO_PEERCRED` on the channel's event loop.
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let future: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}
