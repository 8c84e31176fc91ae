import Foundation
import Testing
@testable import StenoMedia

@Suite("Sidecar JSON")
struct SidecarTests {
    func parse(_ s: String) throws(SidecarError) -> Sidecar { try Sidecar.parse(Data(s.utf8)) }

    @Test func knownKeys() throws {
        let s = try parse("""
            {"recordedAt": "2026-11-20T09:30:00+01:00", "durationSeconds": 1830.5, "title": "Daily standup",
             "owner": "alice@corp.example", "iCalUId": "040000008200E00074C5B7101A82E008", "eventId": "AAMkAD=",
             "calendarProvider": "graph", "transcript": "Hello.", "transcriptFile": "standup.vtt"}
            """)
        #expect(s.recordedAt == MediaDate.parse("2026-11-20T08:30:00Z"))
        #expect(s.recordedAtText == "2026-11-20T09:30:00+01:00")
        #expect(s.durationSeconds == 1830.5)
        #expect(s.title == "Daily standup")
        #expect(s.owner == "alice@corp.example")
        #expect(s.iCalUId == "040000008200E00074C5B7101A82E008")
        #expect(s.eventId == "AAMkAD=")
        #expect(s.calendarProvider == "graph")
        #expect(s.transcript == "Hello.")
        #expect(s.transcriptFile == "standup.vtt")
        #expect(s.extra.isEmpty)
        #expect(s.problems.isEmpty)
    }

    @Test func recordedAtForms() throws {
        #expect(try parse(#"{"recordedAt": "2026-11-20T09:30:00Z"}"#).recordedAt == MediaDate.parse("2026-11-20T09:30:00Z"))
        #expect(try parse(#"{"recordedAt": "2026-11-20T09:30:00.123Z"}"#).recordedAt == MediaDate.parse("2026-11-20T09:30:00.123Z"))
        #expect(try parse(#"{"recorded_at": "2026-11-20T09:30:00"}"#).recordedAt == MediaDate.parse("2026-11-20T09:30:00Z"))
        #expect(try parse(#"{"recordedAt": "2026-11-20"}"#).problems.count == 1)
        let bad = try parse(#"{"recordedAt": "yesterday"}"#)
        #expect(bad.recordedAt == nil)
        #expect(bad.recordedAtText == "yesterday")
        #expect(bad.problems.count == 1)
    }

    @Test func unknownKeysAreKept() throws {
        let s = try parse(#"{"title": "x", "room": "Atlas", "attendees": ["a@x", "b@x"], "score": 3, "ok": true, "n": null}"#)
        #expect(s.extra["room"] == "Atlas")
        #expect(s.extra["attendees"] == #"["a@x","b@x"]"#)
        #expect(s.extra["score"] == "3")
        #expect(s.extra["ok"] == "true")
        #expect(s.extra["n"] == "null")
    }

    /// 0 and 1 are numbers, not booleans: Foundation's parser on Linux gave them as values that
    /// also cast to Bool, so a one-second duration was refused and an extra `1` became "true".
    @Test func zeroAndOneAreNumbers() throws {
        let s = try parse(#"{"durationSeconds": 1, "count": 0, "ratio": 1.0, "flag": true}"#)
        #expect(s.durationSeconds == 1)
        #expect(s.problems.isEmpty)
        #expect(s.extra["count"] == "0")
        #expect(s.extra["ratio"] == "1.0")
        #expect(s.extra["flag"] == "true")
        #expect(try parse(#"{"duration": 0}"#).durationSeconds == 0)
    }

    @Test func wrongTypesAreProblemsNotFailures() throws {
        let s = try parse(#"{"title": 42, "durationSeconds": "12.5", "owner": "alice"}"#)
        #expect(s.title == nil)
        #expect(s.durationSeconds == 12.5)
        #expect(s.owner == "alice")
        #expect(s.problems.count == 2)
    }

    @Test func invalidJSONIsATypedError() {
        #expect(throws: SidecarError.self) { try parse("{\"title\": ") }
        do {
            _ = try parse("{\"title\": ")
        } catch {
            #expect(error.kind == .invalidJSON)
            #expect(error.message.hasPrefix("sidecar is not valid JSON"))
        }
        do {
            _ = try parse("[1, 2]")
        } catch {
            #expect(error.kind == .notAnObject)
        }
        do {
            _ = try Sidecar.read(path: "/nonexistent/steno.json")
        } catch {
            #expect(error.kind == .io)
        }
    }
}

@Suite("Transcripts")
struct TranscriptTests {
    @Test func webVTT() {
        let vtt = """
            WEBVTT - standup
            Kind: captions

            NOTE written by the meeting bot

            STYLE
            ::cue { color: white }

            1
            00:00:01.000 --> 00:00:04.000 align:start
            <v Alice>Good morning &amp; welcome.</v>

            00:00:04.000 --> 00:00:06.500
            <c.yellow>Let's start</c> with Bob.
            Bob?

            00:00:06.500 --> 00:00:07.000
            Bob?
            """
        #expect(Transcript.plainText(vtt, format: .vtt) == "Good morning & welcome.\nLet's start with Bob.\nBob?")
    }

    @Test func subRip() {
        let srt = "\u{FEFF}1\r\n00:00:01,000 --> 00:00:04,000\r\n<i>Hello</i> there.\r\n\r\n2\r\n00:00:04,500 --> 00:00:06,000\r\n{\\an8}42 is the answer.\r\n\r\n"
        #expect(Transcript.plainText(srt, format: .srt) == "Hello there.\n42 is the answer.")
    }

    @Test func plainTextAndFiles() throws {
        #expect(Transcript.plainText("  Just text.\n\nSecond line.\n", format: .txt) == "Just text.\n\nSecond line.")
        #expect(Transcript.Format(pathExtension: ".SRT") == .srt)
        #expect(Transcript.Format(pathExtension: "doc") == nil)
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.path + "/call.vtt"
        try "WEBVTT\n\n00:00.000 --> 00:01.000\nHi.\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try Transcript.read(path: path) == "Hi.")
        #expect(throws: MediaError.self) { try Transcript.read(path: dir.path + "/call.doc") }
        #expect(throws: MediaError.self) { try Transcript.read(path: dir.path + "/missing.txt") }
    }
}
