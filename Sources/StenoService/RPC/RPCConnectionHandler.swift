import Logging
import NIOCore
import StenoAPI

/// Serves one connection: hands each frame to the dispatcher and writes the replies.
///
/// Requests may be pipelined; up to `maxInFlight` run at once and their replies go out as
/// they finish (JSON-RPC matches them by id). Beyond that, or while the client does not read
/// its replies, the handler stops reading, so a slow client only slows itself.
final class RPCConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = InboundFrame
    typealias OutboundOut = ByteBuffer

    private let dispatcher: RPCDispatcher
    private let maxInFlight: Int
    private let logger: Logger
    private let tracker: ConnectionTracker
    private var credentials: PeerCredentials?
    private var pending: CircularBuffer<InboundFrame> = []
    private var inFlight = 0
    private var isOpen = true
    private var readPaused = false
    /// The client shut down its writing side: close once every reply is out.
    private var inputClosed = false
    /// The most recent reply's write, so closing waits for it to reach the socket.
    private var lastWrite: EventLoopFuture<Void>?
    /// Runs this connection's request tasks on its event loop.
    private var executor: EventLoopTaskExecutor?

    private func taskExecutor(for eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        if let executor { return executor }
        let created = EventLoopTaskExecutor(eventLoop: eventLoop)
        executor = created
        return created
    }

    init(dispatcher: RPCDispatcher, maxInFlight: Int, tracker: ConnectionTracker, logger: Logger) {
        self.dispatcher = dispatcher
        self.maxInFlight = maxInFlight
        self.tracker = tracker
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        tracker.opened(context.channel)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        PeerCredentialsReader.read(from: context.channel).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success(let credentials):
                handler.credentials = credentials
                handler.drain(context: context)
            case .failure(let error):
                handler.logger.error("cannot read the peer credentials of a connection: \(error); closing it")
                context.close(promise: nil)
            }
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isOpen = false
        pending.removeAll()
        tracker.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending.append(unwrapInboundIn(data))
        drain(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        updateReading(context: context)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            inputClosed = true
            closeIfFinished(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error: \(error)")
        context.close(promise: nil)
    }

    /// Starts queued requests while there is room.
    private func drain(context: ChannelHandlerContext) {
        guard let credentials else { return }
        while isOpen, inFlight < maxInFlight, let frame = pending.popFirst() {
            switch frame {
            case .oversized(let limit):
                let error = RPCError.invalidRequest(
                    "request line longer than \(limit) bytes; split it or raise rpc.max_frame_bytes",
                    data: ["limit": .int(Int64(limit))])
                write(RPCDispatcher.encode(RPCResponse(id: .null, error: error).json), context: context)
            case .line(let line):
                inFlight += 1
                tracker.requestStarted()
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let dispatcher = self.dispatcher
                let tracker = self.tracker
                let executor = taskExecutor(for: context.eventLoop)
                Task(executorPreference: executor) {
                    let reply = await dispatcher.reply(to: line, from: credentials)
                    let finish: @Sendable () -> Void = {
                        let (handler, context) = bound.value
                        tracker.requestFinished()
                        handler.inFlight -= 1
                        if let reply { handler.write(reply, context: context) }
                        handler.drain(context: context)
                    }
                    // The task normally ends on the connection's event loop: finish without a hop.
                    if executor.eventLoop.inEventLoop { finish() } else { executor.eventLoop.execute(finish) }
                }
            }
        }
        updateReading(context: context)
        closeIfFinished(context: context)
    }

    private func closeIfFinished(context: ChannelHandlerContext) {
        guard inputClosed, isOpen, inFlight == 0, pending.isEmpty, credentials != nil else { return }
        isOpen = false
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        if let lastWrite {
            lastWrite.whenComplete { _ in bound.value.close(promise: nil) }
        } else {
            context.close(promise: nil)
        }
    }

    private func write(_ reply: ByteBuffer, context: ChannelHandlerContext) {
        guard isOpen else { return }
        lastWrite = context.writeAndFlush(wrapOutboundOut(reply))
    }

    /// Reads only while requests can start and replies can be written.
    private func updateReading(context: ChannelHandlerContext) {
        let shouldPause = inFlight >= maxInFlight || !pending.isEmpty || !context.channel.isWritable
        guard shouldPause != readPaused, isOpen else { return }
        readPaused = shouldPause
        context.channel.setOption(ChannelOptions.autoRead, value: !shouldPause).whenFailure { _ in }
    }
}
