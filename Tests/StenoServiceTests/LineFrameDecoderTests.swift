import NIOCore
import NIOEmbedded
import Testing

@testable import StenoService

@Suite("Line framing")
struct LineFrameDecoderTests {
    /// Feeds chunks through the decoder and returns what came out.
    func decode(_ chunks: [String], limit: Int = 16, close: Bool = false) throws -> [String] {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxFrameBytes: limit)))
        for chunk in chunks { try channel.writeInbound(ByteBuffer(string: chunk)) }
        if close { _ = try? channel.finish() }
        var frames: [String] = []
        while let frame = try channel.readInbound(as: InboundFrame.self) {
            switch frame {
            case .line(let buffer): frames.append(String(buffer: buffer))
            case .oversized(let limit): frames.append("<oversized \(limit)>")
            }
        }
        return frames
    }

    @Test func splitsLinesAcrossChunks() throws {
        #expect(try decode(["ab", "c\nde", "f\n\ng\n"]) == ["abc", "def", "g"])
    }

    @Test func blankLinesAndCarriageReturnsAreSkipped() throws {
        #expect(try decode(["\n \r\n\t\nx\r\n"]) == ["x\r"])
    }

    @Test func overLongLineIsReportedOnceAndSkipped() throws {
        #expect(try decode(["0123456789", "0123456789", "0123456789\nok\n"]) == ["<oversized 16>", "ok"])
        #expect(try decode([String(repeating: "z", count: 40) + "\nok\n"]) == ["<oversized 16>", "ok"])
    }

    @Test func lineOfExactlyTheLimitPasses() throws {
        #expect(try decode([String(repeating: "a", count: 16) + "\n"]) == [String(repeating: "a", count: 16)])
    }

    @Test func lastLineWithoutNewlineIsDeliveredAtEnd() throws {
        #expect(try decode(["a\nb"], close: true) == ["a", "b"])
    }
}
