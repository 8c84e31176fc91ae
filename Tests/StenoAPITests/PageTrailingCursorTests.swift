import Foundation
import StenoAPI
import StenoCore
import Testing

/// `PageTrailingCursor` reads a page's `nextCursor` from the end of the bytes the daemon
/// writes, and says `.unknown` rather than guess for any other layout: a cursor it does read is
/// always the one the whole reply parses to.
@Suite("A page's cursor read from its end")
struct PageTrailingCursorTests {
    static func page(_ cursor: String?, items: Int = 3) -> [UInt8] {
        let recordings = (0..<items).map { index in
            Recording(
                id: Int64(index + 1), contentHash: String(repeating: "a", count: 64), ownerID: 1,
                paths: [RecordingPath(path: #"/inbox/x","nextCursor":"y"}.wav"#, isPresent: true)], codec: "pcm",
                title: #"Say "nextCursor":"x"} \ \#(index)"#, status: .ready, createdAt: Date(timeIntervalSince1970: 1_780_000_000),
                updatedAt: Date(timeIntervalSince1970: 1_780_000_000))
        }
        return Page(items: recordings, nextCursor: cursor).jsonBytes
    }

    /// A reply line as the daemon writes it around a page.
    static func reply(id: Int64, page: [UInt8]) -> [UInt8] {
        Array(#"{"id":\#(id),"jsonrpc":"2.0","result":"#.utf8) + page + [UInt8(ascii: "}")]
    }

    @Test(arguments: ["djE6Mg==", "", #"a "quoted" \ cursor"#, "\u{1}\u{7F}é😀", #"","nextCursor":""#])
    func theDaemonsCursorIsReadFromThePageAndTheReply(cursor: String) throws {
        let page = Self.page(cursor)
        #expect(try JSONValue.parse(page)["nextCursor"]?.stringValue == cursor)
        #expect(PageTrailingCursor(page: page[...]) == .cursor(cursor))
        #expect(PageTrailingCursor(reply: Self.reply(id: 12, page: page), id: 12) == .cursor(cursor))
    }

    @Test func aLastPageHasNone() {
        #expect(PageTrailingCursor(page: Self.page(nil)[...]) == PageTrailingCursor.none)
        #expect(PageTrailingCursor(page: Self.page(nil, items: 0)[...]) == PageTrailingCursor.none)
        #expect(PageTrailingCursor(reply: Self.reply(id: 3, page: Self.page(nil)), id: 3) == PageTrailingCursor.none)
    }

    @Test(arguments: [
        // Another request's answer, an error, another writer's spacing or order, not a page.
        (#"{"id":4,"jsonrpc":"2.0","result":{"items":[],"nextCursor":"a"}}"#, PageTrailingCursor.unknown),
        (#"{"error":{"code":-32602,"message":"no"},"id":5,"jsonrpc":"2.0"}"#, .unknown),
        (#"{"id": 5, "jsonrpc": "2.0", "result": {"items": [], "nextCursor": "a"}}"#, .unknown),
        (#"{"jsonrpc":"2.0","id":5,"result":{"items":[],"nextCursor":"a"}}"#, .unknown),
        (#"{"id":5,"jsonrpc":"2.0","result":{"items":[],"nextCursor":7}}"#, .unknown),
        (#"{"id":5,"jsonrpc":"2.0","result":"nextCursor"}"#, .unknown),
        (#"{"id":5,"jsonrpc":"2.0","result":{}}"#, .unknown),
        (#"{"id":5,"jsonrpc":"2.0","result":{"items":[],"nextCursor":"a"}}"#, .cursor("a")),
    ])
    func otherLayoutsAreUnknown(line: String, expected: PageTrailingCursor) {
        #expect(PageTrailingCursor(reply: Array(line.utf8), id: 5) == expected)
    }

    /// Bytes of a reply changed at random: whatever still parses as a reply with a page, a
    /// cursor read from its end is the cursor it parses to; nothing traps.
    @Test func aCursorReadIsAlwaysTheParsedOne() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[],:"\ nextCursoritems0a"#.utf8) + [0x00, 0xC3, 0xA9]
        var agreed = 0
        for round in 0..<4_000 {
            var line = Self.reply(id: 9, page: Self.page(round % 5 == 0 ? nil : "c\(round)", items: round % 3))
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let position = Int.random(in: 0..<line.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: line[position] = alphabet.randomElement(using: &generator) ?? 0
                case 1: line.remove(at: position)
                default: line.insert(alphabet.randomElement(using: &generator) ?? 0, at: position)
                }
            }
            let read = PageTrailingCursor(reply: line, id: 9)
            guard case .cursor(let cursor) = read, let parsed = try? JSONValue.parse(line) else { continue }
            let parsedCursor = parsed["result"]?["nextCursor"]?.stringValue
            #expect(parsedCursor == cursor, "\(String(decoding: line, as: UTF8.self))")
            agreed += 1
        }
        #expect(agreed > 100)
    }
}
