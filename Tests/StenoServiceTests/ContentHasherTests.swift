import Foundation
import StenoTesting
import Testing

@testable import StenoService

/// The content hash is a recording's identity: the one-read path for small files and the
/// streaming path for large ones must agree with each other and with SHA-256 itself.
@Suite("Content hasher")
struct ContentHasherTests {
    static func file(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "steno-hash-\(UInt64.random(in: 0...UInt64.max))"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aFileTheDaemonMayNotReadIsExplainedWithItsFix() throws {
        #expect(
            ContentHasher.openRefusal(EACCES)
                == "the daemon may not read the file (Permission denied): let its user or group read it (chmod g+r FILE), then run steno ingest FILE")
        #expect(ContentHasher.openRefusal(ENOENT) == "cannot open: No such file or directory")
        let missing = NSTemporaryDirectory() + "steno-hash-missing-\(UInt64.random(in: 0...UInt64.max))"
        #expect(throws: ContentHasher.Failure.self) { try ContentHasher.sha256(path: missing) }
    }

    /// What coreutils' sha256sum says (the reference the benchmark compares with too).
    static func sha256sum(_ path: String) throws -> String {
        String(try ProcessRunner.run("/usr/bin/sha256sum", [path]).stdout.prefix(64))
    }

    @Test(arguments: [0, 1, 4095, 4096, 70_000, ContentHasher.blockSize + 3])
    func smallFilesComeBackWholeAndBothPathsHashAlike(size: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = try Self.sha256sum(path)

        let kept = try ContentHasher.sha256(path: path, keepingUpTo: size + 1)
        #expect(kept.hex == expected)
        #expect(kept.bytes == Int64(size))
        #expect(kept.contents == bytes, "the parser reads exactly the hashed bytes")

        let streamed = try ContentHasher.sha256(path: path, keepingUpTo: size)
        #expect(streamed.hex == expected)
        #expect(streamed.bytes == Int64(size))
        #expect(streamed.contents == nil, "a file of the limit or more is streamed, not kept")
    }

    @Test func aMissingFileIsATypedFailure() {
        #expect(throws: ContentHasher.Failure.self) {
            _ = try ContentHasher.sha256(path: "/nonexistent/steno-\(UInt32.random(in: 0...UInt32.max))", keepingUpTo: 1 << 20)
        }
    }
}
