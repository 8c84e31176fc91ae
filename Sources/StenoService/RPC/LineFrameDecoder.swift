import NIOCore

/// What the line decoder passes on: a request line, or the news that a line was too long.
enum InboundFrame {
    /// One line without its newline.
    case line(ByteBuffer)
    /// A line exceeded the limit; its bytes were dropped up to the next newline.
    case oversized(limit: Int)
}

/// Splits the byte stream into newline-terminated frames of at most `maxFrameBytes`.
///
/// An over-long line is reported once and discarded up to its newline without being
/// buffered, so a client cannot make the daemon hold more than the limit in memory.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundFrame

    let maxFrameBytes: Int
    /// Bytes already searched for a newline, so a slowly arriving frame is scanned once.
    private var scanned = 0
    /// Inside an over-long line: drop bytes until its newline.
    private var discarding = false

    init(maxFrameBytes: Int) {
        self.maxFrameBytes = maxFrameBytes
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        let searchStart = view.startIndex + scanned
        guard let newline = view[searchStart...].firstIndex(of: UInt8(ascii: "\n")) else {
            if discarding {
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                scanned = 0
            } else if buffer.readableBytes > maxFrameBytes {
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                scanned = 0
                discarding = true
                context.fireChannelRead(wrapInboundOut(.oversized(limit: maxFrameBytes)))
            } else {
                scanned = buffer.readableBytes
            }
            return .needMoreData
        }
        let length = newline - view.startIndex
        scanned = 0
        if discarding {
            buffer.moveReaderIndex(forwardBy: length + 1)
            discarding = false
            return .continue
        }
        if length > maxFrameBytes {
            buffer.moveReaderIndex(forwardBy: length + 1)
            context.fireChannelRead(wrapInboundOut(.oversized(limit: maxFrameBytes)))
            return .continue
        }
        guard let line = buffer.readSlice(length: length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 1)
        if Self.isBlank(line) { return .continue }
        context.fireChannelRead(wrapInboundOut(.line(line)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last request without its newline still counts when the client half-closes.
        if !discarding, buffer.readableBytes > 0, let line = buffer.readSlice(length: buffer.readableBytes), !Self.isBlank(line) {
            context.fireChannelRead(wrapInboundOut(.line(line)))
        }
        return .needMoreData
    }

    private static func isBlank(_ line: ByteBuffer) -> Bool {
        line.readableBytesView.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }
}
