#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import Synchronization

/// How a connection's reply carries a descriptor: NIO writes the socket but does not pass
/// descriptors, so the reply is sent with `sendmsg` on the socket itself, once NIO has nothing
/// of this connection left to write (the bytes keep their order).
///
/// NIO does not say which descriptor a channel's socket is; the socket's kernel cookie
/// (`SO_COOKIE`, read through the channel) finds it among the process's descriptors, once per
/// connection that asks.
enum ReplyDescriptorHandoff {
    /// `SO_COOKIE`, which Swift's Glibc module leaves out.
    static let socketCookie: Int32 = 57

    /// The channel's socket cookie, read on its event loop.
    static func cookie(of channel: any Channel) -> EventLoopFuture<UInt64> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(socketCookie))
    }

    /// The descriptor of the socket whose cookie is `cookie`, or nil.
    static func descriptor(ofSocketWithCookie cookie: UInt64) -> Int32? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name) else { continue }
            var value: UInt64 = 0
            var length = socklen_t(MemoryLayout<UInt64>.size)
            if getsockopt(descriptor, SOL_SOCKET, socketCookie, &value, &length) == 0, value == cookie { return descriptor }
        }
        return nil
    }
}

/// The descriptor one request's reply carries, set by the method (``RPCCall/attach``).
final class ReplyAttachmentSlot: Sendable {
    private let held = Mutex<(any ReplyAttachment)?>(nil)

    /// Holds `attachment` for the reply; false when one is held already.
    func attach(_ attachment: any ReplyAttachment) -> Bool {
        held.withLock { held in
            guard held == nil else { return false }
            held = attachment
            return true
        }
    }

    /// The attachment, handed to the writer once.
    func take() -> (any ReplyAttachment)? {
        held.withLock { held in
            defer { held = nil }
            return held
        }
    }
}
