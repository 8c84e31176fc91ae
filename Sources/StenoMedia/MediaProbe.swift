import Foundation

/// Entry point: identifies a recording by its content and reads its metadata.
public enum MediaProbe {
    /// Reads the metadata of the file at `path`.
    ///
    /// Opens the file once, reads only the headers it needs (usually one or two `pread`
    /// calls), and closes it before returning.
    public static func probe(path: String) throws(MediaError) -> MediaInfo {
        let source = try FileByteSource(path: path)
        defer { source.close() }
        return try probe(source)
    }

    /// Reads the metadata of `source`.
    public static func probe(_ source: some ByteSource) throws(MediaError) -> MediaInfo {
        guard source.size > 0 else { throw MediaError(.empty, offset: 0, "the file is empty (0 bytes)") }
        let found = try detect(source)
        guard let found else {
            throw MediaError(.notAudio, offset: 0, "not a recognised audio file: no WAV, RF64, FLAC, MP3, MP4, Ogg, WebM/Matroska or CAF signature found")
        }
        switch found.format {
        case .wav, .rf64: return try WAVParser.parse(source, at: found.offset, id3: found.id3)
        case .flac: return try FLACParser.parse(source, at: found.offset, id3: found.id3)
        case .mp3: return try MP3Parser.parse(source, at: found.offset, id3: found.id3)
        case .mp4: return try MP4Parser.parse(source, at: found.offset)
        case .ogg: return try OggParser.parse(source, at: found.offset)
        case .webm, .matroska: return try MatroskaParser.parse(source, at: found.offset)
        case .caf: return try CAFParser.parse(source, at: found.offset)
        }
    }

    /// Identifies the container by its signature bytes (never by file name), skipping any
    /// ID3v2 tag in front of it. Returns nil when no known signature is found.
    public static func detectFormat(_ source: some ByteSource) throws(MediaError) -> MediaFormat? {
        try detect(source)?.format
    }

    /// Identifies the container of the file at `path`; nil when it is not a known one.
    public static func detectFormat(path: String) throws(MediaError) -> MediaFormat? {
        let source = try FileByteSource(path: path)
        defer { source.close() }
        return try detectFormat(source)
    }

    struct Detection {
        var format: MediaFormat
        /// Offset of the container's first byte (after any ID3v2 tags).
        var offset: UInt64
        /// ID3v2 tags found in front of the container.
        var id3: ID3Tag?
    }

    static func detect(_ source: some ByteSource) throws(MediaError) -> Detection? {
        var offset: UInt64 = 0
        var id3: ID3Tag?
        // Several ID3v2 tags may be stacked; a handful is plenty.
        for _ in 0..<8 {
            let head = try source.read(at: offset, count: 10)
            guard head.count == 10, head.matches("ID3", at: 0) else { break }
            let tag = try ID3Tag.read(source, at: offset)
            if id3 == nil { id3 = tag } else { id3?.merge(tag) }
            offset += tag.totalSize
        }
        let head = try source.read(at: offset, count: 12)
        if var format = signature(head) {
            // An ID3 tag in front of a container is unusual but harmless: parse from the container.
            if format == .matroska, try isWebM(source, at: offset) { format = .webm }
            return Detection(format: format, offset: offset, id3: id3)
        }
        if let start = try MP3Parser.findFirstFrame(source, from: offset, requireSecond: id3 == nil) {
            return Detection(format: .mp3, offset: start, id3: id3)
        }
        return nil
    }

    /// WebM is Matroska with DocType "webm" (element 0x4282), near the start of the header.
    private static func isWebM(_ source: some ByteSource, at offset: UInt64) throws(MediaError) -> Bool {
        let h = try source.read(at: offset, count: 64)
        var i = 4
        while i + 7 <= h.count {
            if h[i] == 0x42, h[i + 1] == 0x82 { return h.matches("webm", at: i + 3 + h[i + 2].leadingZeroBitCount) }
            i += 1
        }
        return false
    }

    private static func signature(_ h: [UInt8]) -> MediaFormat? {
        if h.matches("RIFF", at: 0), h.matches("WAVE", at: 8) { return .wav }
        if h.matches("RF64", at: 0) || h.matches("BW64", at: 0), h.matches("WAVE", at: 8) { return .rf64 }
        if h.matches("fLaC", at: 0) { return .flac }
        if h.matches("OggS", at: 0) { return .ogg }
        if h.count >= 4, h[0] == 0x1A, h[1] == 0x45, h[2] == 0xDF, h[3] == 0xA3 { return .matroska }
        if h.matches("caff", at: 0) { return .caf }
        for box in ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot"] where h.matches(box, at: 4) {
            return .mp4
        }
        return nil
    }
}
