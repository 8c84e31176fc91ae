import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StenoAgentClient {
    /// A part of a recording's audio file, as the server sent it.
    public struct AudioPart: Sendable, Hashable {
        /// The bytes asked for (the whole file when no range was).
        public var data: Data
        /// The container's media type, e.g. `audio/mp4`.
        public var contentType: String?
        /// The whole file's size in bytes.
        public var totalSize: Int64?
        /// The file's version (its content hash, quoted): unchanged while the recording is.
        public var etag: String?
    }

    /// The request that streams recording `recordingID`'s audio, for a player that takes a
    /// `URLRequest` (its `Authorization` header carries the device token; the server answers
    /// `Range` requests with 206 and `If-None-Match` with 304).
    public func audioRequest(recordingID: Int64) throws(AgentClientError) -> URLRequest {
        var request = URLRequest(url: try url("sync/recordings/\(recordingID)/audio"), timeoutInterval: timeout)
        request.setValue("Device \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    /// Recording `recordingID`'s audio, whole or the bytes of `range`:
    /// `GET /sync/recordings/{id}/audio`. A recording the device's owner may not see is
    /// `.server(status: 404, …)`; a file gone from the server's inbox 410; one changed since
    /// it was catalogued 409 (try again once the server has read it again).
    public func audio(recordingID: Int64, range: ClosedRange<Int64>? = nil) async throws(AgentClientError) -> AudioPart {
        var request = try audioRequest(recordingID: recordingID)
        if let range { request.setValue("bytes=\(range.lowerBound)-\(range.upperBound)", forHTTPHeaderField: "Range") }
        let (data, http) = try await Self.exchange(request, session: session)
        // `bytes 0-99/5000` for a part; the body's length for the whole file.
        let total = http.value(forHTTPHeaderField: "Content-Range").flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } }
            ?? (http.statusCode == 200 ? Int64(data.count) : nil)
        return AudioPart(
            data: data, contentType: http.value(forHTTPHeaderField: "Content-Type"), totalSize: total,
            etag: http.value(forHTTPHeaderField: "ETag"))
    }
}
