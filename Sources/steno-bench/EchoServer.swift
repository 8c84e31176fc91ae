import NIOCore
import NIOPosix

/// The baseline: a NIO server on a Unix socket that answers every line with a prepared
/// reply of the same size as the daemon's, doing no work in between.
final class EchoServer {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    init(path: String, reply: [UInt8], threads: Int) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let replyBuffer = ByteBuffer(bytes: reply + [10])
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(NewlineDecoder()), ReplyHandler(reply: replyBuffer))
                }
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
    }

    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    private struct NewlineDecoder: ByteToMessageDecoder {
        typealias InboundOut = ByteBuffer
        mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
            guard let newline = buffer.readableBytesView.firstIndex(of: 10),
                let line = buffer.readSlice(length: newline - buffer.readerIndex)
            else { return .needMoreData }
            buffer.moveReaderIndex(forwardBy: 1)
            context.fireChannelRead(wrapInboundOut(line))
            return .continue
        }
    }

    private final class ReplyHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let reply: ByteBuffer
        init(reply: ByteBuffer) { self.reply = reply }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
        }
    }
}
