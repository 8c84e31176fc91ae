import Foundation
import StenoAPI
import Testing

/// The one-setting `client.toml` reader: what it accepts, the line it names when it refuses,
/// and that no input makes it crash.
@Suite("client.toml")
struct ClientConfigFileTests {
    func parse(_ text: String) throws(ClientConfigError) -> ClientConfigFile {
        try ClientConfigFile.parse(text, path: "/c.toml")
    }

    @Test func acceptsCommentsBlanksAndOneQuotedSocket() throws {
        #expect(try parse("") == ClientConfigFile())
        #expect(try parse("# nothing yet\n\n   \n") == ClientConfigFile())
        #expect(try parse("socket = \"/run/steno/stenod.sock\"\n") == ClientConfigFile(socket: "/run/steno/stenod.sock"))
        #expect(try parse("\t socket=\"/s p/a\\\"b\\\\.sock\"   # why\r\n") == ClientConfigFile(socket: "/s p/a\"b\\.sock"))
        #expect(try parse("socket = \"/ü/stenod.sock\"") == ClientConfigFile(socket: "/ü/stenod.sock"))
    }

    @Test(arguments: [
        ("socket = /run/steno/stenod.sock", "double quotes"),
        ("socket = '/run/steno/stenod.sock'", "double quotes"),
        ("socket = \"/run/steno", "no closing quote"),
        ("socket = \"/a\" extra", "unexpected text"),
        ("socket \"/a\"", "expected ="),
        ("[client]", "expected a setting"),
        ("= \"/a\"", "expected a setting"),
        ("sockets = \"/a\"", "unknown setting \"sockets\""),
        ("socket = \"relative.sock\"", "absolute path"),
        ("socket = \"\"", "absolute path"),
        ("socket = \"/a\\n\"", "escapes"),
        ("socket = \"/a\u{1B}[31m\"", "control character"),
        ("socket = \"/a\"\nsocket = \"/b\"", "set twice"),
    ])
    func refusesAnythingElseNamingTheLine(text: String, reason: String) {
        #expect(throws: ClientConfigError.self) { try parse("# header\n" + text) }
        do {
            _ = try parse("# header\n" + text)
        } catch {
            #expect(error.reason.contains(reason), "\(error)")
            #expect(error.line == (text.contains("\nsocket") ? 3 : 2), "\(error)")
            #expect(error.description.hasPrefix("/c.toml line"))
        }
    }

    /// Random lines from the characters that matter (quotes, escapes, `=`, `#`, blanks, control
    /// characters, non-ASCII): every input either parses to an absolute socket or throws, never crashes.
    @Test func randomInputParsesOrThrowsWithALine() {
        let alphabet: [Character] = ["s", "o", "c", "k", "e", "t", "/", "\"", "\\", "=", "#", " ", "\t", "\n", "\r", "'", "[", "ü", "\u{0}", "\u{7F}", "a"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...40, using: &generator)
            var text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            if Bool.random(using: &generator) { text = "socket = \"" + text }
            do {
                let config = try parse(text)
                #expect(config.socket.map { $0.hasPrefix("/") } ?? true, "\(text.debugDescription)")
            } catch {
                #expect((error.line ?? 0) >= 1, "\(text.debugDescription): \(error)")
            }
        }
    }

    @Test func aMissingFileIsNoConfigAndAnUnreadableOneIsAnError() throws {
        #expect(try ClientConfigFile.load(path: "/nonexistent-\(UUID().uuidString)/client.toml") == nil)
        #expect(throws: ClientConfigError.self) { try ClientConfigFile.load(path: NSTemporaryDirectory()) }
    }
}
