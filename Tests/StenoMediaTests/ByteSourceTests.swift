import Foundation
import Testing
@testable import StenoMedia

@Suite("Byte sources")
struct ByteSourceTests {
    @Test func fileSourceReadsWithinBoundsAndCaches() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.path + "/bytes.bin"
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let src = try FileByteSource(path: path)
        #expect(src.size == 100_000)
        #expect(try src.read(at: 10, count: 5) == Array(bytes[10..<15]))
        #expect(try src.read(at: 40_000, count: 70_000) == Array(bytes[40_000...]))  // large read, clipped at the end
        #expect(try src.read(at: 99_998, count: 10) == Array(bytes[99_998...]))
        #expect(try src.read(at: 100_000, count: 10).isEmpty)
        #expect(try src.read(at: UInt64.max, count: 10).isEmpty)
        #expect(try src.read(at: 5, count: 0).isEmpty)
        #expect(throws: MediaError.self) { try src.readExactly(at: 99_990, count: 20, format: "test", what: "tail") }
        src.close()
        #expect(throws: MediaError.self) { try src.read(at: 60_000, count: 4) }
    }

    @Test func memorySourceMatchesFileSemantics() throws {
        let m = MemoryByteSource([1, 2, 3, 4])
        #expect(try m.read(at: 2, count: 10) == [3, 4])
        #expect(try m.read(at: 4, count: 1).isEmpty)
        let e = try? m.readExactly(at: 3, count: 2, format: "test", what: "field")
        #expect(e == nil)
    }

    @Test func detectionByContent() throws {
        for (name, bytes) in FuzzTests.handBuiltSamples() {
            let format = try MediaProbe.detectFormat(MemoryByteSource(bytes))
            let expected: MediaFormat = switch name {
            case "built.m4a", "built-tables.m4a": .mp4
            case "built.opus": .ogg
            case "built.mp3": .mp3
            case "built.wav": .wav
            case "built.flac": .flac
            case "built.caf": .caf
            default: .webm  // Matroska with DocType "webm"
            }
            #expect(format == expected, "\(name)")
        }
        #expect(try MediaProbe.detectFormat(MemoryByteSource(Bytes.ascii("%PDF-1.7 not audio"))) == nil)
    }
}
