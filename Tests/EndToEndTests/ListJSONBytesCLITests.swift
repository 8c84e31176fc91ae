import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// `steno meetings --all -o json` pretty-prints each page from the reply's bytes: the output
/// across several pages must be exactly the text the values printed whole give (with DEL, C1,
/// bidi and line-separator scalars escaped for the terminal), however the daemon spelled the
/// JSON, and a malformed reply must be an error, never passed through.
@Suite("steno -o json from the reply's bytes", .blocksThreads, .serialized)
struct ListJSONBytesCLITests {
    /// A daemon double answering `meetings.list` from page files: page N's result is the file
    /// `N.json` sent as it is (`raw`, the daemon's compact form) or loaded and dumped again by
    /// Python (`python`: spaces after separators, non-ASCII as `\u` escapes).
    final class PagesDaemon {
        let root: String
        var socketPath: String { root + "/pages.sock" }
        let process: ChildProcess

        static let script = SocketDoubleScript.python(
            """
            folder, mode = args
            def answer(request):
                cursor = (request.get("params") or {}).get("cursor")
                if cursor is not None: open(os.path.join(folder, "asked-%s" % cursor), "w").close()
                page = open(os.path.join(folder, "%d.json" % (0 if cursor is None else int(cursor))), "rb").read()
                if mode == "python":
                    return json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": json.loads(page)}).encode()
                return b'{"id":' + str(request["id"]).encode() + b',"jsonrpc":"2.0","result":' + page + b'}'
            """)

        /// Serves `pages` (their results' bytes) in `mode`.
        init(pages: [[UInt8]], mode: String) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("steno-pages-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            for (number, page) in pages.enumerated() {
                try Data(page).write(to: URL(fileURLWithPath: root + "/\(number).json"))
            }
            process = try ChildProcess("/usr/bin/env", ["python3", "-c", Self.script, root + "/pages.sock", root, mode], standardError: .inherit)
            let ready = try poll(timeout: 120, { FileManager.default.fileExists(atPath: self.socketPath + ".ready") }, until: { $0 })
            guard ready else { throw TestDaemonError("the daemon double did not start") }
        }

        deinit {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    /// Titles a calendar can carry: quotes, backslashes, C0 controls, DEL, C1, bidi controls,
    /// line separators, accents, wide characters, emoji.
    static let titles = [
        #"Plain"#, #"Say "hi" \ back\slash"#, "Tab\tnew\nline\rreturn \u{0} nul", "\u{1B}[31mred\u{1B}]0;pwned\u{07}", "DEL\u{7F} C1\u{85}\u{9B}2J",
        "\u{202E}gnp.exe \u{2066}iso\u{2069} \u{61C}alm \u{200E}\u{200F}", "line\u{2028}sep\u{2029}para", "Café – naïve € 日本語 😀👩‍👩‍👧",
        "slash / and \u{FFFD} and \u{10FFFF}", "",
    ]

    static func meetings(count: Int) -> [MeetingSummary] {
        (0..<count).map { index in
            let title = titles[index % titles.count]
            return MeetingSummary(
                id: Int64(index + 1), title: title + (index % 3 == 0 ? "" : " #\(index)"),
                start: Date(timeIntervalSince1970: 1_780_000_000 + Double(index) * 60), end: index % 4 == 0 ? nil : Date(timeIntervalSince1970: 1_780_003_600),
                organizer: index % 2 == 0 ? Attendee(email: "o\(index)@example.com", name: index % 5 == 0 ? title : nil) : nil,
                attendeeCount: index % 7, recordings: index % 3 == 0 ? [Int64(index), 2] : [], location: index % 5 == 1 ? title : nil,
                onlineMeetingURL: nil, isCancelled: index % 6 == 0, isGone: false, isAllDay: index % 9 == 0,
                firstDay: index % 9 == 0 ? "2026-06-01" : nil, lastDay: index % 9 == 0 ? "2026-06-02" : nil)
        }
    }

    /// `meetings` as pages of at most 1,000 (what `--all` asks for), each the daemon's bytes.
    static func pages(_ meetings: [MeetingSummary]) throws -> [[UInt8]] {
        let chunks = stride(from: 0, to: meetings.count, by: 1000).map { Array(meetings[$0..<min($0 + 1000, meetings.count)]) }
        return try chunks.enumerated().map { number, items in
            let page = Page(items: items, nextCursor: number + 1 < chunks.count ? String(number + 1) : nil)
            return try JSONValueEncoder().encode(page).serializedBytes
        }
    }

    /// What the tree path writes: the values pretty-printed whole, with the scalars a terminal
    /// would act on (DEL, C1, direction controls, line separators) as `\uXXXX`.
    static func expectedJSON(_ meetings: [MeetingSummary]) throws -> String {
        let text = try JSONValueEncoder().encode(meetings).prettyPrinted()
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\n"
    }

    /// Runs `steno meetings --all -o json` against `double`.
    static func listAll(_ double: PagesDaemon) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ProcessRunner.run(
            TestDaemon.executable(named: "steno"), ["--socket", double.socketPath, "meetings", "--all", "-o", "json"],
            removing: ["STENO_SOCKET"], timeout: 300)
        return (result.status, result.stdout, result.stderr)
    }

    @Test(arguments: ["raw", "python"])
    func severalPagesPrintAsTheValuesPrintedWhole(mode: String) throws {
        let meetings = Self.meetings(count: 2_345)
        let double = try PagesDaemon(pages: try Self.pages(meetings), mode: mode)
        let listed = try Self.listAll(double)
        try #require(listed.status == 0, "\(listed.stderr)")
        let expected = try Self.expectedJSON(meetings)
        #expect(listed.stdout == expected, "the output differs from the values printed whole")
        #expect(!listed.stdout.unicodeScalars.contains { ($0.value >= 0x7F && $0.value <= 0x9F) || $0 == "\u{202E}" || $0 == "\u{2028}" })
        #expect(try JSONValue.parse(listed.stdout).arrayValue?.count == meetings.count)
    }

    /// One unsafe title after hundreds of kilobytes of plain ones is still escaped: the
    /// check for bytes that may start an unsafe scalar reads the page in blocks.
    @Test(arguments: ["\u{9B}2J", "\u{202E}gnp.exe", "DEL\u{7F}"])
    func anUnsafeTitleFarIntoAPageIsEscaped(title: String) throws {
        var meetings = Self.meetings(count: 999).map { meeting in
            var plain = meeting
            plain.title = "Plain #\(meeting.id)"
            plain.organizer = nil
            plain.location = nil
            return plain
        }
        meetings[998].title = title
        let double = try PagesDaemon(pages: try Self.pages(meetings), mode: "raw")
        let listed = try Self.listAll(double)
        try #require(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == (try Self.expectedJSON(meetings)))
        #expect(!listed.stdout.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E || $0.value == 0x7F })
    }

    @Test func anEmptyListIsAnEmptyArray() throws {
        let double = try PagesDaemon(pages: [Array(#"{"items":[]}"#.utf8)], mode: "raw")
        let listed = try Self.listAll(double)
        #expect(listed.status == 0 && listed.stdout == "[]\n", "\(listed)")
    }

    @Test(arguments: [
        #"{"items":[{"id":1,"title":"cut"#, #"{"items":[{"id":1,"title":"a\u0000b\x"}]}"#, #"{"items":[{"id":01}]}"#,
        #"{"items":{"id":1}}"#, #"{"items":[],"nextCursor":5}"#,
    ])
    func aMalformedPageIsAnErrorNotOutput(page: String) throws {
        let first = Array(#"{"items":[{"id":1,"title":"first"}],"nextCursor":"1"}"#.utf8)
        let double = try PagesDaemon(pages: [first, Array(page.utf8)], mode: "raw")
        let listed = try Self.listAll(double)
        #expect(listed.status != 0, "\(listed)")
        #expect(!listed.stdout.contains("cut") && !listed.stdout.contains("a\\u0000b"), "\(listed.stdout)")
    }

    /// `--all` asks for the next page as soon as the cursor at the end of a reply is in, before
    /// the reply is parsed (the daemon reads the next rows while steno prints these): a reply
    /// whose items are malformed is still an error, but its cursor was already asked for.
    @Test func theNextPageIsAskedForBeforeThisOneIsParsed() throws {
        let first = Array(#"{"items":[{"id":1,"title":"cut"},],"nextCursor":"1"}"#.utf8)
        let last = Array(#"{"items":[{"id":2,"title":"never shown"}]}"#.utf8)
        let double = try PagesDaemon(pages: [first, last], mode: "raw")
        let listed = try Self.listAll(double)
        #expect(listed.status != 0 && !listed.stdout.contains("cut") && !listed.stdout.contains("never shown"), "\(listed)")
        let asked = try poll(timeout: 60, { FileManager.default.fileExists(atPath: double.root + "/asked-1") }, until: { $0 })
        #expect(asked, "the second page was not asked for before the first was parsed")
    }

    @Test func invalidUTF8InAPageIsAnError() throws {
        let page = Array(#"{"items":[{"id":1,"title":""#.utf8) + [0xC3, 0x28] + Array(#""}]}"#.utf8)
        let double = try PagesDaemon(pages: [page], mode: "raw")
        let listed = try Self.listAll(double)
        #expect(listed.status != 0 && listed.stdout.isEmpty, "\(listed)")
    }
}
