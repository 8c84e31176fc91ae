/// Random-access, read-only bytes: a file or an in-memory buffer.
///
/// Parsers only ever call `read(at:count:)` with counts they have bounded themselves,
/// so a source never allocates from a size a file claims.
public protocol ByteSource {
    /// Total number of bytes.
    var size: UInt64 { get }
    /// Up to `count` bytes starting at `offset`; fewer only when the end is reached,
    /// empty when `offset >= size`.
    func read(at offset: UInt64, count: Int) throws(MediaError) -> [UInt8]
}

extension ByteSource {
    /// Exactly `count` bytes at `offset`, or a `.truncated` error naming `what`.
    func readExactly(at offset: UInt64, count: Int, format: String, what: @autoclosure () -> String) throws(MediaError) -> [UInt8] {
        guard count >= 0 else { throw MediaError.invalid(format, at: offset, "negative read of \(what())") }
        if offset > size || UInt64(count) > size - offset {
            throw MediaError.truncated(format, at: offset, "\(what()) needs \(count) bytes but the file ends at \(size)")
        }
        let bytes = try read(at: offset, count: count)
        guard bytes.count == count else {
            throw MediaError.truncated(format, at: offset, "\(what()) needs \(count) bytes but only \(bytes.count) could be read")
        }
        return bytes
    }

    /// Bytes remaining after `offset` (0 past the end).
    func remaining(after offset: UInt64) -> UInt64 {
        offset >= size ? 0 : size - offset
    }
}

/// A ``ByteSource`` over bytes already in memory; used by tests and fuzzing.
public struct MemoryByteSource: ByteSource, Sendable {
    /// The bytes.
    public let bytes: [UInt8]

    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The number of bytes.
    public var size: UInt64 { UInt64(bytes.count) }

    /// Up to `count` bytes at `offset`.
    public func read(at offset: UInt64, count: Int) throws(MediaError) -> [UInt8] {
        guard count > 0, offset < UInt64(bytes.count) else { return [] }
        let start = Int(offset)
        let end = start + min(count, bytes.count - start)
        return Array(bytes[start..<end])
    }
}
