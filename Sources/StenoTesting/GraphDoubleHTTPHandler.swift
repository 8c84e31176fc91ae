import Foundation
import NIOCore
import NIOHTTP1

/// Reads whole HTTP requests and answers each with the double's response.
final class GraphDoubleHTTPHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let service: GraphDoubleService
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(service: GraphDoubleService) {
        self.service = service
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            self.head = nil
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let text = body.readString(length: body.readableBytes) ?? ""
            let request = GraphDouble.Request(method: head.method.rawValue, uri: head.uri, headers: headers, body: text)
            let (mailbox, refusal, delay) = service.enter(request)
            let response = refusal ?? service.handle(request)
            guard delay > 0 else {
                send(response, head: head, context: context)
                service.leave(mailbox)
                return
            }
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(delay))) {
                self.send(response, head: head, context: bound.value)
                self.service.leave(mailbox)
            }
        }
    }

    private func send(_ response: GraphDoubleResponse, head: HTTPRequestHead, context: ChannelHandlerContext) {
        var responseHeaders = HTTPHeaders()
        responseHeaders.add(name: "Content-Type", value: response.contentType)
        responseHeaders.add(name: "Content-Length", value: String(response.body.count))
        for (name, value) in response.headers { responseHeaders.add(name: name, value: value) }
        let keepAlive = head.isKeepAlive
        if !keepAlive { responseHeaders.add(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: responseHeaders))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
        let sent = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            sent.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

/// A response of the double.
struct GraphDoubleResponse {
    var status: Int
    var headers: [(String, String)] = []
    var body: Data
    var contentType = "application/json"

    /// A JSON response from a JSON object.
    static func json(_ status: Int, _ object: Any, headers: [(String, String)] = []) -> GraphDoubleResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return GraphDoubleResponse(status: status, headers: headers, body: data)
    }

    /// A Graph error: `{"error": {"code", "message"}}`.
    static func graphError(_ status: Int, _ code: String, _ message: String, headers: [(String, String)] = []) -> GraphDoubleResponse {
        json(status, ["error": ["code": code, "message": message, "innerError": ["request-id": UUID().uuidString]]], headers: headers)
    }

    /// An identity platform error: `{"error", "error_description"}`.
    static func oauthError(_ status: Int, _ code: String, _ description: String) -> GraphDoubleResponse {
        json(status, ["error": code, "error_description": description, "error_codes": [0], "trace_id": UUID().uuidString])
    }
}
