#if canImport(Glibc)
import Glibc
#endif

/// systemd socket activation (`sd_listen_fds`): the listening socket arrives as fd 3 when
/// `LISTEN_PID` is this process and `LISTEN_FDS` is at least 1.
enum SocketActivation {
    /// The first passed descriptor, if systemd passed any to this process.
    static func inheritedListener(environment: [String: String]) -> Int32? {
        guard let pidText = environment["LISTEN_PID"], let pid = pid_t(pidText), pid == getpid(),
            let countText = environment["LISTEN_FDS"], let count = Int(countText), count >= 1
        else { return nil }
        let fd: Int32 = 3
        // Keep the descriptor from leaking into children.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// Tells systemd the daemon is ready (`Type=notify`), if it asked to be told.
    static func notifyReady(environment: [String: String]) {
        guard var path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        if path.hasPrefix("@") { path = "\0" + path.dropFirst() }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let message = Array("READY=1".utf8)
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, address, length) }
            }
        }
    }
}
