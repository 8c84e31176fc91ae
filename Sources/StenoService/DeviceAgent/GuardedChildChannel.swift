import HummingbirdCore
import Logging
import NIOCore

/// Wraps the device listener's HTTP (or TLS) child channel: counts each connection in
/// ``DeviceListenerConnections`` (closing it at once when its client holds too many or
/// descriptors run short), reads a Unix-socket peer's credentials, and puts a
/// ``ConnectionDeadlineHandler`` in front so a client that sends nothing useful is let go.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let connections: DeviceListenerConnections
    /// How long a connection may go without an answer being written to it.
    let deadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let peer: EventLoopFuture<PeerCredentials?> =
            channel.remoteAddress?.ipAddress != nil
            ? channel.eventLoop.makeSucceededFuture(nil)
            : PeerCredentialsReader.read(from: channel).map { Optional($0) }.recover { _ in nil }
        let connections = self.connections
        let deadline = self.deadline
        return peer.flatMapThrowing { credentials -> Void in
            guard case .admitted = connections.admit(channel, credentials: credentials) else { throw ChannelError.inputClosed }
            channel.closeFuture.whenComplete { _ in connections.closed(channel) }
            try channel.pipeline.syncOperations.addHandler(ConnectionDeadlineHandler(deadline: deadline), position: .first)
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes a connection that goes `deadline` without anything written to it since it opened
/// or since its last answer: a client trickling its request a byte at a time, or holding the
/// connection without a request, lets its slot go.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let deadline: TimeAmount
    private var lastAnswer = NIODeadline.now()
    private var check: Scheduled<Void>?

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastAnswer = .now()
        schedule(context: context, at: lastAnswer + deadline)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastAnswer = .now()
        context.write(data, promise: promise)
    }

    private func schedule(context: ChannelHandlerContext, at time: NIODeadline) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: time) {
            let (handler, context) = bound.value
            let due = handler.lastAnswer + handler.deadline
            if due <= .now() {
                handler.check = nil
                context.close(promise: nil)
            } else {
                handler.schedule(context: context, at: due)
            }
        }
    }
}
