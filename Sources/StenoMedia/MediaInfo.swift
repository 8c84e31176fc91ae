import Foundation

/// The container family a recording was identified as, by content (never by file name).
///
/// Broadcast Wave (a WAV or RF64 with a `bext` chunk) is not a separate format: it is
/// reported as `.wav`/`.rf64` with ``MediaInfo/isBroadcastWave`` set, because the
/// audio layout and the way it is read are the same.
public enum MediaFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// RIFF/WAVE (including Broadcast Wave).
    case wav
    /// EBU RF64 / BW64: WAV with 64-bit sizes in a `ds64` chunk.
    case rf64
    /// Native FLAC stream.
    case flac
    /// MPEG audio elementary stream (layer I/II/III), optionally with ID3 tags.
    case mp3
    /// ISO base media / QuickTime: MP4, M4A, MOV.
    case mp4
    /// Ogg with Opus or Vorbis.
    case ogg
    /// WebM (Matroska with DocType "webm").
    case webm
    /// Matroska (MKV/MKA).
    case matroska
    /// Apple Core Audio Format.
    case caf
}

/// What Steno knows about a recording after reading its headers.
public struct MediaInfo: Sendable, Hashable, Codable {
    /// The container.
    public var format: MediaFormat
    /// The audio codec in FFmpeg-style naming: "pcm_s16le", "pcm_f32le", "flac", "mp3",
    /// "aac", "alac", "ima4", "opus", "vorbis", …
    public var codec: String
    /// Playable length in seconds, matching what a full decode produces to within 0.1 s.
    public var duration: Double
    /// Samples per second of the decoded audio, when the container says.
    public var sampleRate: Int?
    /// Channel count from the codec configuration, when known.
    public var channels: Int?
    /// Bits per sample for PCM-like codecs.
    public var bitsPerSample: Int?
    /// When the recording was made, if the container carries it.
    public var creationTime: Date?
    /// Text tags the container carries; keys lowercased ("title", "artist", "date",
    /// "comment", "encoder", "icaluid", …).
    public var tags: [String: String]
    /// True for WAV/RF64 files with a Broadcast Wave `bext` chunk.
    public var isBroadcastWave: Bool
    /// Readings worth a person's attention that did not stop the file being read, one
    /// sentence each ("truncated: header says 11.2 s, data holds 6.7 s").
    public var warnings: [String]

    /// Creates a value; parsers fill it in.
    public init(
        format: MediaFormat, codec: String, duration: Double,
        sampleRate: Int? = nil, channels: Int? = nil, bitsPerSample: Int? = nil,
        creationTime: Date? = nil, tags: [String: String] = [:], isBroadcastWave: Bool = false,
        warnings: [String] = []
    ) {
        self.format = format
        self.codec = codec
        self.duration = duration
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitsPerSample = bitsPerSample
        self.creationTime = creationTime
        self.tags = tags
        self.isBroadcastWave = isBroadcastWave
        self.warnings = warnings
    }
}

/// Fixed limits that keep parsing bounded whatever a file claims.
enum MediaLimits {
    /// Largest metadata block (tag, comment packet, header) ever read into memory.
    static let maxMetadataBytes = 1 << 20
    /// Largest single text value kept in `tags`.
    static let maxTagValueBytes = 4096
    /// Most tag entries kept per file.
    static let maxTagCount = 256
    /// Highest plausible sample rate (Hz).
    static let maxSampleRate = 1_536_000
    /// Most channels accepted.
    static let maxChannels = 255
    /// Longest plausible recording (31 days); longer means the header is corrupt.
    static let maxDuration: Double = 31 * 86400
}

extension MediaInfo {
    /// Checks the numbers every parser produces before handing them out.
    func validated(_ formatName: String) throws(MediaError) -> MediaInfo {
        if let sr = sampleRate, sr <= 0 || sr > MediaLimits.maxSampleRate {
            throw MediaError.invalid(formatName, at: nil, "sample rate \(sr) Hz is not plausible")
        }
        if let ch = channels, ch <= 0 || ch > MediaLimits.maxChannels {
            throw MediaError.invalid(formatName, at: nil, "channel count \(ch) is not plausible")
        }
        if !duration.isFinite || duration < 0 || duration > MediaLimits.maxDuration {
            throw MediaError.invalid(formatName, at: nil, "duration \(duration) is not plausible")
        }
        return self
    }

    /// Most samples one byte of a codec's data can carry: PCM at least a byte per sample;
    /// an AAC frame (up to 2048 samples with SBR) at least a byte; anything else up to
    /// 8192 (Opus DTX, Vorbis long blocks), container overhead not even counted.
    var mostSamplesPerByte: Double {
        if codec.hasPrefix("pcm_") { return 1 }
        return codec == "aac" ? 2048 : 8192
    }

    /// Fails when the duration is longer than `bytes` of audio data can hold at any
    /// bitrate the codec has (a corrupt header, not a long recording).
    func checked(against bytes: UInt64, _ formatName: String) throws(MediaError) -> MediaInfo {
        // The lowest common rate gives the largest bound when the container does not say.
        let rate = Double(sampleRate ?? 8000)
        let most = Double(bytes) * mostSamplesPerByte / rate
        guard duration <= most + 1 else {
            throw MediaError.invalid(
                formatName, at: nil,
                "the header's duration \(String(format: "%.1f", duration)) s is more than \(bytes) bytes of \(codec) can hold (at most \(String(format: "%.1f", most)) s)")
        }
        return self
    }
}
