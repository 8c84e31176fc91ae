import Foundation
import Synchronization
import StenoTestTraits
import Testing
@testable import StenoMedia

/// The generated corpus: one line per file —
/// `name | tool | input | options | format codec sampleRate channels creationTime(or -)`,
/// optionally followed by `| key=value …` tags that must be read.
/// For ffmpeg the input is a lavfi source; for sox the input part goes before the output
/// file name and the options after it. Long files use silence at low rates so that
/// generating everything stays well under two minutes on two cores.
let corpusSpec = """
wav-u8-8k-mono-1s.wav | ffmpeg | sine=f=440:r=8000:d=1 | -ac 1 -c:a pcm_u8 | wav pcm_u8 8000 1 -
wav-s16-16k-stereo-7.3s.wav | ffmpeg | sine=f=440:r=16000:d=7.3 | -ac 2 -c:a pcm_s16le -metadata title=Standup | wav pcm_s16le 16000 2 - | title=Standup
wav-s24-44k-mono-2.5s.wav | ffmpeg | sine=f=440:r=44100:d=2.5 | -ac 1 -c:a pcm_s24le | wav pcm_s24le 44100 1 -
wav-f32-48k-stereo-3s.wav | ffmpeg | sine=f=440:r=48000:d=3 | -ac 2 -c:a pcm_f32le | wav pcm_f32le 48000 2 -
wav-s16-8k-mono-10min.wav | ffmpeg | anullsrc=r=8000:cl=mono:d=600 | -c:a pcm_s16le | wav pcm_s16le 8000 1 -
bwf-s16-48k-stereo-2s.wav | ffmpeg | sine=f=440:r=48000:d=2 | -ac 2 -c:a pcm_s16le -write_bext 1 -metadata origination_date=2026-11-20 -metadata origination_time=09:30:15 -metadata description=Standup | wav pcm_s16le 48000 2 2026-11-20T09:30:15Z
rf64-s16-16k-mono-2s.wav | ffmpeg | sine=f=440:r=16000:d=2 | -ac 1 -c:a pcm_s16le -rf64 always | rf64 pcm_s16le 16000 1 -
flac-44k-stereo-5s.flac | ffmpeg | sine=f=440:r=44100:d=5 | -ac 2 -metadata date=2026-11-20T09:30:00Z -metadata title=Standup -metadata ICALUID=040000008200E001 | flac flac 44100 2 2026-11-20T09:30:00Z | title=Standup icaluid=040000008200E001
flac-16k-mono-1s.flac | ffmpeg | sine=f=440:r=16000:d=1 | -ac 1 | flac flac 16000 1 -
flac-8k-mono-60min.flac | ffmpeg | anullsrc=r=8000:cl=mono:d=3600 | -c:a flac | flac flac 8000 1 -
mp3-cbr-44k-stereo-7.3s.mp3 | ffmpeg | sine=f=440:r=44100:d=7.3 | -ac 2 -c:a libmp3lame -b:a 128k | mp3 mp3 44100 2 -
mp3-cbr-noxing-22k-mono-5s.mp3 | ffmpeg | sine=f=440:r=22050:d=5 | -ac 1 -c:a libmp3lame -b:a 64k -write_xing 0 | mp3 mp3 22050 1 -
mp3-vbr-xing-44k-stereo-10s.mp3 | ffmpeg | aevalsrc=if(lt(mod(t\\,3)\\,1)\\,0\\,if(lt(mod(t\\,3)\\,2)\\,sin(440*2*PI*t)\\,0.3*(random(0)*2-1))):s=44100:d=10 | -ac 2 -c:a libmp3lame -q:a 4 | mp3 mp3 44100 2 -
mp3-vbr-noxing-48k-stereo-10s.mp3 | ffmpeg | aevalsrc=if(lt(mod(t\\,3)\\,1)\\,0\\,if(lt(mod(t\\,3)\\,2)\\,sin(440*2*PI*t)\\,0.3*(random(0)*2-1))):s=48000:d=10 | -ac 2 -c:a libmp3lame -q:a 2 -write_xing 0 | mp3 mp3 48000 2 -
mp3-vbr-noxing-16k-mono-61s.mp3 | ffmpeg | aevalsrc=if(lt(mod(t\\,3)\\,1)\\,0\\,if(lt(mod(t\\,3)\\,2)\\,sin(440*2*PI*t)\\,0.3*(random(0)*2-1))):s=16000:d=61 | -ac 1 -c:a libmp3lame -q:a 0 -write_xing 0 | mp3 mp3 16000 1 -
mp3-id3v23-22k-mono-3s.mp3 | ffmpeg | sine=f=440:r=22050:d=3 | -ac 1 -c:a libmp3lame -b:a 32k -id3v2_version 3 -metadata date=2026 -metadata TDAT=2011 -metadata TIME=0930 -metadata title=Standup | mp3 mp3 22050 1 2026-11-20T09:30:00Z | title=Standup year=2026
mp3-id3v24-44k-mono-3s.mp3 | ffmpeg | sine=f=440:r=44100:d=3 | -ac 1 -c:a libmp3lame -b:a 64k -id3v2_version 4 -metadata date=2026-11-20T09:30:00 -metadata title=Standup -metadata iCalUId=abc-123@corp.example | mp3 mp3 44100 1 2026-11-20T09:30:00Z | title=Standup icaluid=abc-123@corp.example
mp3-cbr-noxing-8k-mono-60min.mp3 | ffmpeg | anullsrc=r=8000:cl=mono:d=3600 | -c:a libmp3lame -b:a 8k -write_xing 0 | mp3 mp3 8000 1 -
mp3-vbr-xing-11k-mono-10min.mp3 | ffmpeg | anullsrc=r=11025:cl=mono:d=600 | -c:a libmp3lame -q:a 6 | mp3 mp3 11025 1 -
m4a-aac-44k-mono-7.3s.m4a | ffmpeg | sine=f=440:r=44100:d=7.3 | -ac 1 -c:a aac -b:a 64k | mp4 aac 44100 1 -
m4a-aac-48k-stereo-3s.m4a | ffmpeg | sine=f=440:r=48000:d=3 | -ac 2 -c:a aac -b:a 96k -metadata creation_time=2026-11-20T09:30:00Z -metadata title=Standup -metadata comment=Weekly | mp4 aac 48000 2 2026-11-20T09:30:00Z | title=Standup comment=Weekly
m4a-aac-16k-mono-10min.m4a | ffmpeg | anullsrc=r=16000:cl=mono:d=600 | -c:a aac -b:a 24k | mp4 aac 16000 1 -
m4a-alac-44k-stereo-2s.m4a | ffmpeg | sine=f=440:r=44100:d=2 | -ac 2 -c:a alac | mp4 alac 44100 2 -
mov-aac-22k-stereo-4s.mov | ffmpeg | sine=f=440:r=22050:d=4 | -ac 2 -c:a aac -metadata creation_time=2026-11-20T09:30:00Z | mp4 aac 22050 2 2026-11-20T09:30:00Z
mp4-aac-faststart-32k-stereo-1s.mp4 | ffmpeg | sine=f=440:r=32000:d=1 | -ac 2 -c:a aac -movflags +faststart | mp4 aac 32000 2 -
mov-mdta-creationdate-44k-mono-1s.mov | ffmpeg | sine=f=440:r=44100:d=1 | -ac 1 -c:a aac -movflags use_metadata_tags -metadata com.apple.quicktime.creationdate=2026-11-20T10:30:00+0100 | mp4 aac 44100 1 2026-11-20T09:30:00Z
m4a-fragmented-aac-48k-mono-3.3s.m4a | ffmpeg | sine=f=440:r=48000:d=3.3 | -ac 1 -c:a aac -movflags frag_keyframe+empty_moov+default_base_moof | mp4 aac 48000 1 -
mp4-fragmented-aac-44k-stereo-3.3s.mp4 | ffmpeg | sine=f=440:r=44100:d=3.3 | -ac 2 -c:a aac -frag_duration 500000 -movflags +frag_keyframe+empty_moov | mp4 aac 44100 2 -
opus-48k-stereo-7.3s.opus | ffmpeg | sine=f=440:r=48000:d=7.3 | -ac 2 -c:a libopus -b:a 32k -metadata date=2026-11-20T09:30:00Z | ogg opus 48000 2 2026-11-20T09:30:00Z
opus-16k-mono-1s.ogg | ffmpeg | sine=f=440:r=16000:d=1 | -ac 1 -c:a libopus -b:a 16k | ogg opus 48000 1 -
opus-8k-mono-60min.ogg | ffmpeg | anullsrc=r=8000:cl=mono:d=3600 | -c:a libopus -b:a 6k | ogg opus 48000 1 -
vorbis-44k-stereo-5s.ogg | ffmpeg | sine=f=440:r=44100:d=5 | -ac 2 -c:a libvorbis -q:a 2 -metadata date=2026-11-20T09:30:00Z -metadata ICALUID=abc-123 | ogg vorbis 44100 2 2026-11-20T09:30:00Z | icaluid=abc-123
vorbis-22k-mono-10min.ogg | ffmpeg | anullsrc=r=22050:cl=mono:d=600 | -c:a libvorbis -q:a 0 | ogg vorbis 22050 1 -
webm-opus-48k-stereo-7.3s.webm | ffmpeg | sine=f=440:r=48000:d=7.3 | -ac 2 -c:a libopus -b:a 32k -metadata creation_time=2026-11-20T09:30:00Z -metadata ICALUID=abc-123 -metadata title=Retro | webm opus 48000 2 2026-11-20T09:30:00Z | icaluid=abc-123 title=Retro
webm-live-opus-48k-mono-4.2s.webm | ffmpeg | sine=f=440:r=48000:d=4.2 | -ac 1 -c:a libopus -b:a 24k -f webm -live 1 -cluster_size_limit 4000 | webm opus 48000 1 -
webm-vorbis-44k-mono-2s.webm | ffmpeg | sine=f=440:r=44100:d=2 | -ac 1 -c:a libvorbis | webm vorbis 44100 1 -
mkv-aac-44k-mono-5s.mkv | ffmpeg | sine=f=440:r=44100:d=5 | -ac 1 -c:a aac | matroska aac 44100 1 -
mkv-flac-48k-stereo-3s.mka | ffmpeg | sine=f=440:r=48000:d=3 | -ac 2 -c:a flac | matroska flac 48000 2 -
mkv-pcm-16k-mono-1s.mkv | ffmpeg | sine=f=440:r=16000:d=1 | -ac 1 -c:a pcm_s16le | matroska pcm_s16le 16000 1 -
caf-lpcm-44k-stereo-3s.caf | ffmpeg | sine=f=440:r=44100:d=3 | -ac 2 -c:a pcm_s16le | caf pcm_s16le 44100 2 -
caf-ima4-22k-mono-5s.caf | ffmpeg | sine=f=440:r=22050:d=5 | -ac 1 -c:a adpcm_ima_qt | caf ima4 22050 1 -
caf-alac-48k-stereo-7.3s.caf | ffmpeg | sine=f=440:r=48000:d=7.3 | -ac 2 -c:a alac | caf alac 48000 2 -
caf-lpcm-8k-mono-10min.caf | ffmpeg | anullsrc=r=8000:cl=mono:d=600 | -c:a pcm_s16be | caf pcm_s16be 8000 1 -
sox-wav-16k-6ch-2s.wav | sox | -n -r 16000 -c 6 -b 16 | synth 2 sine 300 | wav pcm_s16le 16000 6 -
sox-wav-ext-44k-stereo-3.1s.wav | sox | -n -r 44100 -c 2 -b 24 | synth 3.1 sine 300 | wav pcm_s24le 44100 2 -
sox-flac-22k-mono-4s.flac | sox | -n -r 22050 -c 1 | synth 4 sine 300 | flac flac 22050 1 -
sox-mp3-44k-stereo-6s.mp3 | sox | -n -r 44100 -c 2 -C 128 | synth 6 sine 300 | mp3 mp3 44100 2 -
"""

struct CorpusEntry: Sendable {
    var name, tool, input, options: String
    var format: MediaFormat
    var codec: String
    var sampleRate: Int
    var channels: Int
    var creationTime: Date?
    var tags: [String: String] = [:]

    static func all() -> [CorpusEntry] {
        corpusSpec.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard f.count == 5 || f.count == 6 else { return nil }
            let e = f[4].split(separator: " ").map(String.init)
            guard e.count == 5, let format = MediaFormat(rawValue: e[0]), let rate = Int(e[2]), let ch = Int(e[3]) else { return nil }
            var tags: [String: String] = [:]
            if f.count == 6 {
                for pair in f[5].split(separator: " ") {
                    let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    if kv.count == 2 { tags[kv[0]] = kv[1] }
                }
            }
            return CorpusEntry(name: f[0], tool: f[1], input: f[2], options: f[3], format: format, codec: e[1],
                               sampleRate: rate, channels: ch, creationTime: e[4] == "-" ? nil : MediaDate.parse(e[4]), tags: tags)
        }
    }

    /// Writes the file into `dir`.
    func generate(in dir: String) throws -> String {
        let out = "\(dir)/\(name)"
        let opts = options.split(separator: " ").map(String.init)
        let r: (status: Int32, outputBytes: Int, stderr: String)
        if tool == "sox", let sox = ExternalTools.sox {
            r = try run(sox, input.split(separator: " ").map(String.init) + [out] + opts)
        } else if let ffmpeg = ExternalTools.ffmpeg {
            r = try run(ffmpeg, ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", input] + opts + [out])
        } else {
            throw CocoaError(.fileNoSuchFile)
        }
        if r.status != 0 { throw CorpusError(message: "generating \(name) failed: \(r.stderr)") }
        return out
    }
}

struct CorpusError: Error, CustomStringConvertible { var message: String; var description: String { message } }

/// Length in seconds of a full decode by FFmpeg: every decoded sample, resampled to
/// 48 kHz mono 16-bit, counted byte by byte.
func decodedDuration(_ path: String) throws -> Double {
    guard let ffmpeg = ExternalTools.ffmpeg else { throw CorpusError(message: "ffmpeg missing") }
    let r = try run(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-ar", "48000", "-"], countOutput: true)
    if r.status != 0 { throw CorpusError(message: "decoding \(path) failed: \(r.stderr)") }
    return Double(r.outputBytes) / 2 / 48000
}

struct CorpusResult: Sendable {
    var entry: CorpusEntry
    var info: MediaInfo?
    var error: String?
    var decoded: Double = 0
}

@Suite("Generated corpus (ffmpeg, sox)", .blocksThreads)
struct CorpusTests {
    @Test("Every generated file parses with the decoded duration (±0.1 s), channels, rate, codec and date",
          .enabled(if: ExternalTools.shouldRun, "ffmpeg/sox not installed: apt-get install -y ffmpeg sox libsox-fmt-all"),
          .timeLimit(.minutes(10)))
    func corpus() throws {
        guard ExternalTools.require() else { return }
        let dir = try TempDir()
        defer { dir.cleanup() }
        let entries = CorpusEntry.all()
        #expect(entries.count >= 47)
        let results = Mutex<[CorpusResult]>([])
        DispatchQueue.concurrentPerform(iterations: entries.count) { i in
            let entry = entries[i]
            var r = CorpusResult(entry: entry)
            do {
                let path = try entry.generate(in: dir.path)
                r.decoded = try decodedDuration(path)
                do {
                    r.info = try MediaProbe.probe(path: path)
                } catch {
                    r.error = "\(error)"
                }
                // Small generated files are fuzzed too: each cut must give a result or a MediaError.
                let bytes = readFile(path)
                if bytes.count < 128 * 1024 {
                    var cut = 0
                    while cut < bytes.count {
                        _ = probeBytes(Array(bytes[0..<cut]))
                        cut += cut < 4096 ? 1 : 61
                    }
                }
                try? FileManager.default.removeItem(atPath: path)
            } catch {
                r.error = "\(error)"
            }
            results.withLock { $0.append(r) }
        }
        var worst: [MediaFormat: Double] = [:]
        for r in results.withLock({ $0 }).sorted(by: { $0.entry.name < $1.entry.name }) {
            let e = r.entry
            guard let info = r.info else {
                Issue.record("\(e.name): \(r.error ?? "no result")")
                continue
            }
            let diff = abs(info.duration - r.decoded)
            worst[e.format] = max(worst[e.format] ?? 0, diff)
            #expect(diff <= 0.1, "\(e.name): parsed \(info.duration) s, decoded \(r.decoded) s")
            #expect(info.warnings.isEmpty, "\(e.name): whole files carry no warnings: \(info.warnings)")
            #expect(info.format == e.format, "\(e.name): format \(info.format)")
            #expect(info.codec == e.codec, "\(e.name): codec \(info.codec)")
            #expect(info.sampleRate == e.sampleRate, "\(e.name): sample rate \(String(describing: info.sampleRate))")
            #expect(info.channels == e.channels, "\(e.name): channels \(String(describing: info.channels))")
            for (key, value) in e.tags {
                #expect(info.tags[key] == value, "\(e.name): tag \(key) is \(String(describing: info.tags[key])), tags \(info.tags)")
            }
            if let want = e.creationTime {
                #expect(info.creationTime.map { abs($0.timeIntervalSince(want)) < 1 } == true,
                        "\(e.name): creation time \(String(describing: info.creationTime)), expected \(want)")
            } else {
                #expect(info.creationTime == nil, "\(e.name): unexpected creation time \(String(describing: info.creationTime))")
            }
        }
        let summary = worst.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \(String(format: "%.4f", $0.value))" }
        print("corpus: \(entries.count) files; max |parsed - decoded| per format: \(summary.joined(separator: ", "))")
    }
}
