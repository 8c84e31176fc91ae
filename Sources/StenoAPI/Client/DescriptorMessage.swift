#if canImport(Glibc)
import Glibc
#endif

/// Sending and receiving bytes with file descriptors attached (`SCM_RIGHTS` ancillary data)
/// on a Unix stream socket: how the daemon hands a recording's open file to a caller, so no
/// audio crosses the socket and the caller needs no permission on the inbox.
///
/// `CMSG_*` are C macros Swift does not import; the layout they compute on Linux is a
/// `cmsghdr` followed by the data, each rounded up to a multiple of `size_t`.
package enum DescriptorMessage {
    /// A system call's refusal.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var code: Int32
        package var description: String { String(cString: strerror(code)) }
    }

    /// The most descriptors one received message may carry here; more are closed.
    package static let maximumDescriptors = 4

    private static func aligned(_ length: Int) -> Int {
        let unit = MemoryLayout<Int>.size
        return (length + unit - 1) / unit * unit
    }

    private static var headerLength: Int { aligned(MemoryLayout<cmsghdr>.size) }

    /// `CMSG_SPACE` of `count` descriptors.
    private static func space(for count: Int) -> Int { headerLength + aligned(count * MemoryLayout<Int32>.size) }

    /// Sends `bytes` (at least one) on `socket` with `descriptor` attached to the first of
    /// them, without blocking: the number of bytes the kernel took, or the `errno`.
    package static func send(_ bytes: UnsafeRawBufferPointer, attaching descriptor: Int32, on socket: Int32) -> Result<Int, DescriptorMessage.Failure> {
        var control = [UInt8](repeating: 0, count: space(for: 1))
        return control.withUnsafeMutableBytes { controlBuffer -> Result<Int, DescriptorMessage.Failure> in
            guard let controlBase = controlBuffer.baseAddress else { return .failure(Failure(code: EINVAL)) }
            let header = controlBase.assumingMemoryBound(to: cmsghdr.self)
            header.pointee.cmsg_len = headerLength + MemoryLayout<Int32>.size
            header.pointee.cmsg_level = SOL_SOCKET
            header.pointee.cmsg_type = Int32(SCM_RIGHTS)
            (controlBase + headerLength).storeBytes(of: descriptor, as: Int32.self)
            var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
            return withUnsafeMutablePointer(to: &vector) { vectorPointer -> Result<Int, DescriptorMessage.Failure> in
                var message = msghdr()
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                message.msg_control = controlBase
                message.msg_controllen = controlBuffer.count
                while true {
                    let sent = sendmsg(socket, &message, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                    if sent >= 0 { return .success(sent) }
                    if errno != EINTR { return .failure(Failure(code: errno)) }
                }
            }
        }
    }

    /// Receives into `buffer` from `socket` (blocking): the byte count (0 at the end) and the
    /// descriptors that came with them, close-on-exec. Descriptors beyond
    /// ``maximumDescriptors`` are closed, so none leaks.
    package static func receive(into buffer: UnsafeMutableRawBufferPointer, from socket: Int32) -> Result<(count: Int, descriptors: [Int32]), DescriptorMessage.Failure> {
        var control = [UInt8](repeating: 0, count: space(for: maximumDescriptors))
        return control.withUnsafeMutableBytes { controlBuffer -> Result<(count: Int, descriptors: [Int32]), DescriptorMessage.Failure> in
            var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
            return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                var message = msghdr()
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                message.msg_control = controlBuffer.baseAddress
                message.msg_controllen = controlBuffer.count
                var count = 0
                while true {
                    count = recvmsg(socket, &message, Int32(MSG_CMSG_CLOEXEC))
                    if count >= 0 { break }
                    if errno != EINTR { return .failure(Failure(code: errno)) }
                }
                return .success((count, descriptors(in: UnsafeRawBufferPointer(start: controlBuffer.baseAddress, count: Int(message.msg_controllen)))))
            }
        }
    }

    /// The `SCM_RIGHTS` descriptors in a received control buffer.
    private static func descriptors(in control: UnsafeRawBufferPointer) -> [Int32] {
        guard let base = control.baseAddress else { return [] }
        var found: [Int32] = []
        var offset = 0
        while offset + headerLength <= control.count {
            let header = base.loadUnaligned(fromByteOffset: offset, as: cmsghdr.self)
            let length = Int(header.cmsg_len)
            guard length >= headerLength, offset + length <= control.count else { break }
            if header.cmsg_level == SOL_SOCKET && header.cmsg_type == Int32(SCM_RIGHTS) {
                let count = (length - headerLength) / MemoryLayout<Int32>.size
                for index in 0..<count {
                    found.append(base.loadUnaligned(fromByteOffset: offset + headerLength + index * MemoryLayout<Int32>.size, as: Int32.self))
                }
            }
            offset += aligned(length)
        }
        for extra in found.dropFirst(maximumDescriptors) { close(extra) }
        return Array(found.prefix(maximumDescriptors))
    }
}
