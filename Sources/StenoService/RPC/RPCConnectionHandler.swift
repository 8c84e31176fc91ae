#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import StenoAPI

/// Serves one connection: hands each frame to the dispatcher and writes the replies.
///
/// Requests may be pipelined; up to `maxInFlight` run at once and their replies go out as
/// they finish (JSON-RPC matches them by id). Beyond that, or while the client does not read
/// its replies, the handler stops reading, so a slow client only slows itself. The uid's
/// requests across all its connections share `limiter`'s permits.
///
/// A uid beyond its connection cap gets one error line and is closed; a connection with
/// nothing running and nothing received for its idle timeout (shorter for unmapped uids) is
/// closed; requests still running when the client goes away are cancelled.
final class RPCConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = InboundFrame
    typealias OutboundOut = ByteBuffer

    /// What the handlers of every connection share.
    struct Shared: Sendable {
        var dispatcher: RPCDispatcher
        var settings: StenoConfiguration.RPCSettings
        var tracker: ConnectionTracker
        var limiter: PerUIDRequestLimiter
        var descriptors: DescriptorWatch
        var logger: Logger
        /// Refusals of one uid logged at most every few seconds, the rest counted.
        var refusals: RepeatedNotice
    }

    private let dispatcher: RPCDispatcher
    private let maxInFlight: Int
    private let logger: Logger
    private let tracker: ConnectionTracker
    private let limiter: PerUIDRequestLimiter
    private let descriptors: DescriptorWatch
    private let refusals: RepeatedNotice
    private let settings: StenoConfiguration.RPCSettings
    private var credentials: PeerCredentials?
    /// The uid the tracker counted this connection for, once admitted.
    private var admittedUID: UInt32?
    /// The running request tasks, cancelled when the client goes away.
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var nextTaskID: UInt64 = 0
    /// Close after this long with nothing running and nothing received; set once the caller is known.
    private var idleTimeout: TimeAmount?
    private var lastActivity = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
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
    /// Replies written and those NIO has finished writing: equal when nothing is pending.
    private var writesIssued = 0
    private var writesDone = 0
    /// Replies waiting to go out with a descriptor.
    private var descriptorRepliesWaiting = 0
    /// The socket's kernel cookie, and its descriptor once a reply needed it.
    private var socketCookie: UInt64?
    private var socketDescriptor: Int32?

    private func taskExecutor(for eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        if let executor { return executor }
        let created = EventLoopTaskExecutor(eventLoop: eventLoop)
        executor = created
        return created
    }

    init(shared: Shared) {
        self.dispatcher = shared.dispatcher
        self.maxInFlight = shared.settings.maxInFlightPerConnection
        self.settings = shared.settings
        self.tracker = shared.tracker
        self.limiter = shared.limiter
        self.descriptors = shared.descriptors
        self.refusals = shared.refusals
        self.logger = shared.logger
    }

    func channelActive(context: ChannelHandlerContext) {
        tracker.opened(context.channel)
        descriptors.connectionOpened(connections: tracker.connectionCount)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ReplyDescriptorHandoff.cookie(of: context.channel).whenSuccess { cookie in bound.value.0.socketCookie = cookie }
        PeerCredentialsReader.read(from: context.channel).whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .success(let credentials):
                handler.admit(credentials, context: context)
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
        idleCheck?.cancel()
        idleCheck = nil
        tracker.closed(context.channel, admittedUID: admittedUID)
        if !tasks.isEmpty {
            // Nobody will read the replies: stop the work (SQLite reads are interrupted).
            for task in tasks.values { task.cancel() }
            tracker.requestsCancelled(tasks.count)
            logger.info(
                "client went away: cancelled its running requests",
                metadata: ["uid": "\(credentials?.uid.description ?? "?")", "requests": "\(tasks.count)"])
            tasks.removeAll()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
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

    /// Counts the connection against its uid's cap, refusing it beyond, and learns its idle timeout.
    private func admit(_ credentials: PeerCredentials, context: ChannelHandlerContext) {
        guard tracker.admit(uid: credentials.uid) else {
            let cap = tracker.maxConnectionsPerUID
            refusals.note(
                "uid \(credentials.uid)", "refused a connection: uid \(credentials.uid) already has \(cap) open (rpc.max_connections_per_uid)")
            let error = RPCError.failedPrecondition(
                "uid \(credentials.uid) already has \(cap) connections open, the most rpc.max_connections_per_uid allows; close some and retry",
                data: ["uid": .int(Int64(credentials.uid)), "limit": .int(Int64(cap))])
            write(RPCDispatcher.encode(RPCResponse(id: .null, error: error).json), context: context)
            isOpen = false
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            (lastWrite ?? context.eventLoop.makeSucceededVoidFuture()).whenComplete { _ in bound.value.close(promise: nil) }
            return
        }
        admittedUID = credentials.uid
        self.credentials = credentials
        drain(context: context)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let dispatcher = self.dispatcher
        let settings = self.settings
        let executor = taskExecutor(for: context.eventLoop)
        Task(executorPreference: executor) {
            let known = await dispatcher.isKnown(credentials)
            let seconds = known ? settings.idleTimeoutSeconds : settings.unmappedIdleTimeoutSeconds
            executor.eventLoop.execute {
                let (handler, context) = bound.value
                handler.idleTimeout = .seconds(Int64(seconds))
                handler.scheduleIdleCheck(context: context)
            }
        }
    }

    /// Checks for idleness when the timeout would pass since the last activity.
    private func scheduleIdleCheck(context: ChannelHandlerContext) {
        // One check at a time: it moves itself on to the latest activity when it fires.
        guard isOpen, idleCheck == nil, let idleTimeout else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(deadline: lastActivity + idleTimeout) {
            let (handler, context) = bound.value
            handler.idleCheck = nil
            handler.closeIfIdle(context: context)
        }
    }

    private func closeIfIdle(context: ChannelHandlerContext) {
        guard isOpen, let idleTimeout else { return }
        // Running or queued requests keep a connection open; finishing them restarts the clock.
        guard inFlight == 0, pending.isEmpty else { return }
        guard NIODeadline.now() >= lastActivity + idleTimeout else { return scheduleIdleCheck(context: context) }
        logger.debug(
            "closing an idle connection",
            metadata: ["uid": "\(credentials?.uid.description ?? "?")", "idleSeconds": "\(idleTimeout.nanoseconds / 1_000_000_000)"])
        isOpen = false
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
                let limiter = self.limiter
                nextTaskID += 1
                let taskID = nextTaskID
                // Notifications a running request sends go out on the connection's event loop.
                // Written at once when sent from the loop (as the request's task runs there), so a
                // notification never goes out after the reply that ends its request.
                let notify: @Sendable (ByteBuffer) -> Void = { frame in
                    let send: @Sendable () -> Void = {
                        let (handler, context) = bound.value
                        handler.write(frame, context: context)
                    }
                    if executor.eventLoop.inEventLoop { send() } else { executor.eventLoop.execute(send) }
                }
                let attachment = ReplyAttachmentSlot()
                tasks[taskID] = Task(executorPreference: executor) {
                    // Cancelled while waiting for its uid's turn: the client left, nobody to answer.
                    let reply = try? await limiter.run(for: credentials.uid) {
                        await dispatcher.reply(to: line, from: credentials, notify: notify, attach: attachment.attach)
                    }
                    let finish: @Sendable () -> Void = {
                        let (handler, context) = bound.value
                        tracker.requestFinished()
                        handler.tasks.removeValue(forKey: taskID)
                        handler.inFlight -= 1
                        handler.lastActivity = .now()
                        if let reply {
                            if let attached = attachment.take() {
                                handler.descriptorRepliesWaiting += 1
                                handler.write(reply, attaching: attached, context: context)
                            } else {
                                handler.write(reply, context: context)
                            }
                        }
                        handler.drain(context: context)
                        if handler.inFlight == 0 { handler.scheduleIdleCheck(context: context) }
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
        guard inputClosed, isOpen, inFlight == 0, pending.isEmpty, descriptorRepliesWaiting == 0, credentials != nil else { return }
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
        writesIssued += 1
        let written = context.writeAndFlush(wrapOutboundOut(reply))
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.whenComplete { _ in bound.value.writesDone += 1 }
        lastWrite = written
    }

    /// Writes a reply with `attachment`'s descriptor on its first byte: with `sendmsg` on the
    /// socket once NIO has written everything before it, the rest (if the kernel took only
    /// part) through NIO. A client that reads nothing is tried again every 20 ms until the idle
    /// timeout, then closed. The daemon's descriptor is let go of on every path.
    private func write(_ reply: ByteBuffer, attaching attachment: any ReplyAttachment, context: ChannelHandlerContext, attempt: Int = 0) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        func finished() {
            descriptorRepliesWaiting -= 1
            closeIfFinished(context: context)
        }
        guard isOpen else { return finished() }
        if writesDone < writesIssued, let lastWrite {
            lastWrite.whenComplete { _ in
                let (handler, context) = bound.value
                handler.write(reply, attaching: attachment, context: context, attempt: attempt)
            }
            return
        }
        if socketDescriptor == nil, let socketCookie { socketDescriptor = ReplyDescriptorHandoff.descriptor(ofSocketWithCookie: socketCookie) }
        guard let socket = socketDescriptor else {
            logger.error("cannot find this connection's socket to hand a descriptor over; the reply goes without it")
            write(reply, context: context)
            return finished()
        }
        let sent = reply.withUnsafeReadableBytes { DescriptorMessage.send($0, attaching: attachment.descriptor, on: socket) }
        switch sent {
        case .success(let count):
            // The kernel holds the file in the message now: the daemon's descriptor can go.
            if count < reply.readableBytes, let rest = reply.getSlice(at: reply.readerIndex + count, length: reply.readableBytes - count) {
                write(rest, context: context)
            }
            finished()
        case .failure(let failure) where failure.code == EAGAIN || failure.code == EWOULDBLOCK:
            let limit = Int((idleTimeout ?? .seconds(300)).nanoseconds / 20_000_000)
            guard attempt < limit else {
                logger.notice("closing a connection whose client reads no replies", metadata: ["uid": "\(credentials?.uid.description ?? "?")"])
                context.close(promise: nil)
                return finished()
            }
            context.eventLoop.scheduleTask(in: .milliseconds(20)) {
                let (handler, context) = bound.value
                handler.write(reply, attaching: attachment, context: context, attempt: attempt + 1)
            }
        case .failure(let failure):
            logger.debug("cannot send a reply with a descriptor: \(failure)")
            context.close(promise: nil)
            finished()
        }
    }

    /// Reads only while requests can start and replies can be written.
    private func updateReading(context: ChannelHandlerContext) {
        let shouldPause = inFlight >= maxInFlight || !pending.isEmpty || !context.channel.isWritable
        guard shouldPause != readPaused, isOpen else { return }
        readPaused = shouldPause
        context.channel.setOption(ChannelOptions.autoRead, value: !shouldPause).whenFailure { _ in }
    }
}
