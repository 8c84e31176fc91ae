#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import StenoCore

extension DeviceAgentRoutes {
    /// Bytes read from the file per write to the client.
    static let audioChunkBytes = 256 << 10

    /// `GET /sync/recordings/{id}/audio`: the recording's file, whole or one `Range` of it, for
    /// a device whose owner may see the recording. Finding and opening it is held to the
    /// request time limit; sending it is not (a phone on a slow network streams for minutes).
    func respondAudio(_ request: Request, _ context: DeviceAgentRequestContext) async throws -> Response {
        let started = ContinuousClock.now
        let address = clientAddress(request, peer: context.peer)
        let authorization = request.headers[.authorization]
        let id = context.parameters.get("id", as: Int64.self)
        var lookup: DeviceAgentAPI.AudioLookup
        do {
            lookup = try await withTimeLimit { () async throws -> DeviceAgentAPI.AudioLookup in
                switch try await api.authenticate(authorization: authorization, address: address) {
                case .failure(let refusal): return .refused(refusal)
                case .success(let device):
                    guard let id else { return .refused(.error(404, "no such recording; the path is /sync/recordings/ID/audio")) }
                    return try await api.audio(device: device, recordingID: id)
                }
            }
        } catch is CancellationError {
            lookup = .refused(.error(503, "the request took longer than \(settings.requestTimeoutSeconds) s; try again"))
        } catch {
            logger.error("device agent request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            lookup = .refused(.error(500, "the server could not complete the request; it is logged"))
        }
        let response: Response
        switch lookup {
        case .refused(let refusal): response = Self.response(refusal)
        case .file(let file, let recording): response = Self.audioResponse(file, recording: recording, request: request)
        }
        logger.debug(
            "device agent request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
                "ms": "\((ContinuousClock.now - started).milliseconds)", "address": "\(address)",
            ])
        return response
    }

    /// The answer for an open file: 200 whole, 206 one range, 416 a range past its end, 304
    /// when the client's copy (`If-None-Match`) is current. The ETag is the content hash.
    static func audioResponse(_ file: RecordingFile, recording: Recording, request: Request) -> Response {
        let etag = "\"" + (recording.contentHash ?? "r\(recording.id)-\(file.size)") + "\""
        var headers: HTTPFields = [
            .contentType: RecordingFile.contentType(format: recording.format), .acceptRanges: "bytes", .eTag: etag,
            .cacheControl: "private, no-cache",
        ]
        if let current = request.headers[.ifNoneMatch],
            current.split(separator: ",").contains(where: { let tag = $0.trimmingCharacters(in: .whitespaces); return tag == etag || tag == "*" })
        {
            return Response(status: .notModified, headers: headers)
        }
        // A range of another version of the file would splice two files: the whole one then.
        let rangeHeader = request.headers[.ifRange].map { $0.trimmingCharacters(in: .whitespaces) == etag } == false ? nil : request.headers[.range]
        switch ByteRange.parse(rangeHeader, size: file.size) {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(file.size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            return Response(status: .ok, headers: headers, body: stream(file, file.size > 0 ? 0...(file.size - 1) : nil))
        case .part(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"
            return Response(status: .partialContent, headers: headers, body: stream(file, range))
        }
    }

    /// The bytes of `range`, read off the event loops a chunk at a time as the client takes
    /// them; the file stays open until the last is written or the client goes.
    static func stream(_ file: RecordingFile, _ range: ClosedRange<Int64>?) -> ResponseBody {
        guard let range else { return ResponseBody() }
        return ResponseBody(contentLength: Int(range.upperBound - range.lowerBound + 1)) { writer in
            var offset = range.lowerBound
            while offset <= range.upperBound {
                let count = Int(min(Int64(audioChunkBytes), range.upperBound - offset + 1))
                let start = offset
                let chunk = try await NIOThreadPool.singleton.runIfActive { () throws -> ByteBuffer in
                    var buffer = ByteBufferAllocator().buffer(capacity: count)
                    let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer -> Int in
                        var read = -1
                        repeat { read = pread(file.descriptor, pointer.baseAddress, count, off_t(start)) } while read < 0 && errno == EINTR
                        return max(0, read)
                    }
                    // The size was checked at open: fewer bytes now means the file was cut meanwhile.
                    guard read > 0 else { throw RecordingFile.Refusal.changed(path: file.path, reason: "was cut short while it was sent") }
                    return buffer
                }
                offset += Int64(chunk.readableBytes)
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
    }
}
