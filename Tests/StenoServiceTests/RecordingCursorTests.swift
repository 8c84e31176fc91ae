import Foundation
import StenoAPI
import StenoCatalog
import StenoCore
import Testing

@testable import StenoService

/// Cursors of ordered recordings listings: each continues exactly the order it was made for,
/// and any other text, forged or from another order, is refused as invalid params.
@Suite("Recordings cursors")
struct RecordingCursorTests {
    static let recording = Recording(
        id: 42, contentHash: nil, ownerID: nil, ownerName: nil, size: 1, format: "wav", codec: nil, duration: 12.5, sampleRate: nil,
        channels: nil, recordedAt: Date(timeIntervalSince1970: 1_764_000_000.123), recordedAtSource: .sidecar, title: nil, iCalUIDHint: nil,
        eventIDHint: nil, providerHint: nil, transcript: nil, status: .ready, failureReason: nil,
        createdAt: Date(timeIntervalSince1970: 1_764_000_100), updatedAt: Date(timeIntervalSince1970: 1_764_000_100))

    @Test(arguments: RecordingSort.allCases)
    func aCursorContinuesItsOwnOrderAfterItsRecording(sort: RecordingSort) throws {
        for descending in [true, false] {
            let order = RecordingOrder(sort: sort, descending: descending)
            let cursor = PageCursor.encode(after: Self.recording, in: order)
            let (afterID, after) = try PageCursor.recordingContinuation(cursor, in: order)
            if order == .byID {
                #expect(afterID == 42 && after == nil)
            } else {
                #expect(afterID == nil && after == order.position(after: Self.recording), "\(order)")
                let other = RecordingOrder(sort: sort, descending: !descending)
                #expect(throws: RPCError.self) { _ = try PageCursor.recordingContinuation(cursor, in: other) }
            }
        }
    }

    @Test(arguments: ["", "djE6", "v1:7", "r1:recorded:d:1e300:1", "r1:recorded:d:nan:1", "r1:recorded:d:1.5e19:1", "r1:length:d:inf:1",
                      "r1:recorded:x:1:1", "r1:recorded:d:1:", "r1:recorded:d:1:2:3", "r1:loudness:d:1:1"])
    func forgedCursorsAreInvalidParams(text: String) {
        let cursor = text.hasPrefix("r1:") || text.hasPrefix("v1:") ? Data(text.utf8).base64EncodedString() : text
        #expect(throws: RPCError.self) { _ = try PageCursor.recordingContinuation(cursor, in: .newestFirst) }
    }
}
