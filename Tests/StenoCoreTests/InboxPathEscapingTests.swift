import StenoCore
import Testing

@Suite("Inbox path escaping")
struct InboxPathEscapingTests {
    @Test(arguments: [
        (Array("standup.m4a".utf8), "standup.m4a"),
        (Array("réunion.m4a".utf8), "réunion.m4a"),
        (Array("a\\b.wav".utf8), "a\\b.wav"),
        ([0x61, 0xFF, 0x2E, 0x6F, 0x67, 0x67], "a\\xFF.ogg"),
        ([0xC3] + Array("\\x.ogg".utf8), "\\xC3\\\\x.ogg"),
        (Array("literal\\xFF.ogg".utf8), "literal\\\\xFF.ogg"),
        (Array("two\\\\.ogg".utf8), "two\\\\\\\\.ogg"),
    ])
    func namesEscapeAndComeBackByteForByte(bytes: [UInt8], escaped: String) {
        #expect(InboxPath.escapedName(bytes) == escaped)
        #expect(InboxPath.fileSystemBytes(of: escaped) == bytes)
    }

    @Test func pathsOfEscapedAndPlainComponentsComeBack() {
        let path = InboxPath.escapedName(Array("alice\\".utf8)) + "/" + InboxPath.escapedName([0xFF])
        #expect(InboxPath.fileSystemBytes(of: path) == Array("alice\\/".utf8) + [0xFF])
    }
}
