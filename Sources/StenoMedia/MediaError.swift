/// Why a recording's metadata could not be read.
///
/// Every parser failure is one of these: a `kind` a program can switch on, the byte
/// `offset` where the problem was found (when it is about a place in the file), and a
/// `message` a person can act on.
public struct MediaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of failure.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The file has zero bytes.
        case empty
        /// A header or chunk claims more bytes than the file holds.
        case truncated
        /// No known audio container signature was found.
        case notAudio
        /// A recognised container whose codec or variant Steno does not read.
        case unsupported
        /// Header values that cannot be right (sample rate 0, impossible sizes, …).
        case invalid
        /// A well-formed container that holds no audio (a header and zero samples).
        case noAudio
        /// The operating system refused to open or read the file.
        case io
    }

    /// The broad class of failure.
    public var kind: Kind
    /// Byte offset in the file where the problem was detected, if it is about a position.
    public var offset: UInt64?
    /// A human-readable explanation, e.g. "truncated MP4: box 'moov' at offset 1234 …".
    public var message: String
    /// The system's `errno` for an `io` failure, so a caller can tell a passing one
    /// (descriptors exhausted) from a lasting one.
    public var systemErrorCode: Int32?

    /// Creates an error.
    public init(_ kind: Kind, offset: UInt64? = nil, _ message: String, systemErrorCode: Int32? = nil) {
        self.kind = kind
        self.offset = offset
        self.message = message
        self.systemErrorCode = systemErrorCode
    }

    /// The message, prefixed with the offset when there is one.
    public var description: String {
        if let offset { return "\(message) (at offset \(offset))" }
        return message
    }

    static func truncated(_ format: String, at offset: UInt64, _ what: String) -> MediaError {
        MediaError(.truncated, offset: offset, "truncated \(format): \(what)")
    }

    static func invalid(_ format: String, at offset: UInt64?, _ what: String) -> MediaError {
        MediaError(.invalid, offset: offset, "invalid \(format): \(what)")
    }

    static func noAudio(_ format: String, at offset: UInt64?, _ what: String) -> MediaError {
        MediaError(.noAudio, offset: offset, "no audio in \(format): \(what)")
    }

    static func unsupported(_ format: String, at offset: UInt64? = nil, _ what: String) -> MediaError {
        MediaError(.unsupported, offset: offset, "unsupported \(format): \(what)")
    }
}
