import Foundation
import Logging
import StenoAPI
import Testing

@testable import StenoService

/// Text log lines escape what users named; JSON lines stay one line each.
@Suite("Log escaping")
struct LogTextEscapingTests {
    static let time = Date(timeIntervalSince1970: 1_795_000_000)

    @Test func messagesKeysAndValuesCannotBreakTheLineOrAddAField() {
        let line = StenoLogHandler.textLine(
            time: Self.time, level: .notice, label: "stenod", message: "failed: \("a\nERROR x: y\u{2028}z\u{1B}[31m\\n")",
            metadata: ["path": "alice/b c.wav uid=0", "plain": "x", "empty": "", "odd key=": "v\"q"])
        #expect(line.filter { $0 == "\n" }.count == 1 && line.hasSuffix("\n"))
        #expect(line.contains(#"failed: a\nERROR x: y\u{2028}z\u{1B}[31m\\n"#), "\(line)")
        #expect(line.contains(#"path="alice/b c.wav uid=0""#), "\(line)")
        #expect(line.contains(#" plain=x"#) && line.contains(#" empty="""#), "\(line)")
        #expect(line.contains(#"odd\u{20}key\u{3D}="v\"q""#), "\(line)")
    }

    @Test func jsonLinesEscapeControlCharacters() throws {
        let line = StenoLogHandler.jsonLine(
            time: Self.time, level: .notice, label: "stenod", message: "a\nb\r\u{0}c", metadata: ["path": "x\ny"])
        #expect(line.filter { $0 == "\n" || $0 == "\r" }.count == 1 && line.hasSuffix("\n"))
        let object = try JSONValue.parse(String(line.dropLast()))
        #expect(object["message"]?.stringValue == "a\nb\r\u{0}c" && object["path"]?.stringValue == "x\ny")
    }
}
