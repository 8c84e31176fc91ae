import Foundation

/// WebM and Matroska.
///
/// Reads Info (TimecodeScale, Duration, DateUTC), the first audio TrackEntry and Tags.
/// When Info has no Duration (live/browser recordings, written with unknown sizes), the
/// clusters are walked to the last block and its end time is used.
enum MatroskaParser {
    private static let name = "Matroska"

    // Element IDs used here.
    static let idEBML: UInt32 = 0x1A45DFA3, idDocType: UInt32 = 0x4282
    static let idSegment: UInt32 = 0x18538067, idInfo: UInt32 = 0x1549A966, idTracks: UInt32 = 0x1654AE6B
    static let idTags: UInt32 = 0x1254C367, idCluster: UInt32 = 0x1F43B675, idCues: UInt32 = 0x1C53BB6B
    static let idSeekHead: UInt32 = 0x114D9B74, idChapters: UInt32 = 0x1043A770, idAttachments: UInt32 = 0x1941A469
    static let topLevel: Set<UInt32> = [idInfo, idTracks, idTags, idCluster, idCues, idSeekHead, idChapters, idAttachments, idEBML, idSegment]

    struct Audio {
        var number: UInt64 = 0
        var codec = "unknown"
        var sampleRate: Int?
        var channels: Int?
        var bits: Int?
        var codecDelayNs: UInt64 = 0
    }

    static func parse(_ src: some ByteSource, at start: UInt64) throws(MediaError) -> MediaInfo {
        let header = try EBML.element(src, at: start, limit: src.size)
        guard header.size != nil else { throw MediaError.invalid(name, at: start, "EBML header has an unknown size") }
        var docType = "matroska"
        var pos = header.dataStart
        while pos < header.end {
            let e = try EBML.element(src, at: pos, limit: header.end)
            if e.id == idDocType { docType = EBML.string(try EBML.data(src, e, cap: 64)) }
            guard e.end > pos else { break }
            pos = e.end
        }
        let format: MediaFormat = docType == "webm" ? .webm : .matroska
        // A Segment claiming more than the file holds was cut short: its clusters are walked
        // to learn how much it still holds.
        let (segment, segmentCut) = try EBML.elementCutAtFileEnd(src, at: header.end)
        guard segment.id == idSegment else { throw MediaError.invalid(name, at: header.end, "expected a Segment after the EBML header") }

        var scale: UInt64 = 1_000_000
        var durationTicks: Double?
        var created: Date?
        var tags = TagSet()
        var audio: Audio?
        var clusters = ClusterWalk()
        pos = segment.dataStart
        var count = 0
        // Each element advances pos by at least its header; the count cap bounds odd files.
        while pos < segment.end, count < 1_000_000 {
            count += 1
            let e: EBMLElement
            do {
                e = try EBML.element(src, at: pos, limit: segment.end, cutAtFileEnd: segmentCut)
            } catch where segmentCut {
                break  // what follows the cut is no element; what came before is kept
            }
            switch e.id {
            case idInfo:
                try children(src, e) { c, d throws(MediaError) in
                    switch c.id {
                    case 0x2AD7B1: scale = EBML.uint(d)
                    case 0x4489: durationTicks = EBML.float(d)
                    case 0x4461: created = Date(timeIntervalSince1970: MediaDate.matroskaEpochOffset + Double(EBML.int(d)) / 1e9)
                    case 0x7BA9: tags.add("title", EBML.string(d))
                    case 0x4D80: tags.add("encoder", EBML.string(d))
                    default: break
                    }
                }
            case idTracks:
                if audio == nil { audio = try tracks(src, e) }
            case idTags:
                try readTags(src, e, into: &tags)
            case idCluster:
                if durationTicks != nil && e.size == nil && !segmentCut { pos = segment.end; continue }  // nothing more needed
                if durationTicks == nil || segmentCut { try clusters.visit(src, e, track: audio?.number) }
            default: break
            }
            let next = e.size == nil ? clusters.endOfUnknown ?? segment.end : e.end
            guard next > pos, !clusters.cutShort else { break }
            pos = next
            clusters.endOfUnknown = nil
        }
        if segmentCut, audio == nil {
            throw MediaError.truncated(
                name, at: segment.start, "the Segment at offset \(segment.start) was cut short by the end of the file at \(src.size), before its tracks")
        }
        guard let audio else { throw MediaError(.notAudio, offset: start, "\(format == .webm ? "WebM" : "Matroska") file has no audio track") }
        guard scale > 0, scale < 1_000_000_000_000 else { throw MediaError.invalid(name, at: start, "TimecodeScale \(scale) is not plausible") }
        var seconds: Double
        if let d = durationTicks, d.isFinite, d >= 0 {
            seconds = d * Double(scale) / 1e9
        } else if let end = clusters.endTicks {
            seconds = Double(end) * Double(scale) / 1e9 - Double(audio.codecDelayNs) / 1e9
        } else {
            throw MediaError.truncated(name, at: segment.dataStart, "no Duration in Info and no audio blocks to measure")
        }
        seconds = max(0, seconds)
        var warnings: [String] = []
        if segmentCut || clusters.cutShort {
            seconds = try held(clusters, scale: scale, codecDelayNs: audio.codecDelayNs, header: durationTicks.map { _ in seconds }, warnings: &warnings)
        }
        let info = MediaInfo(
            format: format, codec: audio.codec, duration: seconds, sampleRate: audio.sampleRate, channels: audio.channels,
            bitsPerSample: audio.bits, creationTime: created ?? tags.creationTime, tags: tags.values, warnings: warnings)
        return try info.validated(name).checked(against: src.size, name)
    }

    /// The length a file cut short holds: up to the end of its last whole audio block, with a
    /// warning naming the header's length when it had one. Fails when no block is left.
    private static func held(
        _ clusters: ClusterWalk, scale: UInt64, codecDelayNs: UInt64, header: Double?, warnings: inout [String]
    ) throws(MediaError) -> Double {
        guard let end = clusters.endTicks else {
            throw MediaError.noAudio(name, at: nil, "the file was cut short before its first whole audio block")
        }
        let held = max(0, Double(end) * Double(scale) / 1e9 - Double(codecDelayNs) / 1e9)
        if let header, held < header {
            warnings.append("truncated: header says \(String(format: "%.1f", header)) s, data holds \(String(format: "%.1f", held)) s")
        } else {
            warnings.append("truncated: the file ends inside its last cluster; data holds \(String(format: "%.1f", held)) s")
        }
        return min(held, header ?? held)
    }

    /// Calls `body` with each child element of `parent` and its data (capped at 4 KiB).
    static func children(_ src: some ByteSource, _ parent: EBMLElement, _ body: (EBMLElement, [UInt8]) throws(MediaError) -> Void) throws(MediaError) {
        var pos = parent.dataStart
        var n = 0
        while pos < parent.end, n < 100_000 {
            n += 1
            let e = try EBML.element(src, at: pos, limit: parent.end)
            guard e.size != nil else { return }
            try body(e, try EBML.data(src, e))
            guard e.end > pos else { return }
            pos = e.end
        }
    }

    private static func tracks(_ src: some ByteSource, _ tracks: EBMLElement) throws(MediaError) -> Audio? {
        var found: Audio?
        try children(src, tracks) { entry, _ throws(MediaError) in
            guard entry.id == 0xAE, found == nil else { return }
            var a = Audio()
            var type: UInt64 = 0
            var privateData: [UInt8] = []
            try children(src, entry) { c, d throws(MediaError) in
                switch c.id {
                case 0xD7: a.number = EBML.uint(d)
                case 0x83: type = EBML.uint(d)
                case 0x86: a.codec = codecName(EBML.string(d))
                case 0x63A2: privateData = d
                case 0x56AA: a.codecDelayNs = EBML.uint(d)
                case 0xE1:
                    try children(src, c) { x, v throws(MediaError) in
                        switch x.id {
                        case 0xB5: if let r = EBML.float(v), r.isFinite, r >= 1, r < 1e7 { a.sampleRate = Int(r) }
                        case 0x78B5: if let r = EBML.float(v), r.isFinite, r >= 1, r < 1e7 { a.sampleRate = Int(r) }
                        case 0x9F: a.channels = Int(min(EBML.uint(v), 1 << 20))
                        case 0x6264: a.bits = Int(min(EBML.uint(v), 1 << 20))
                        default: break
                        }
                    }
                default: break
                }
            }
            guard type == 2 else { return }
            if a.codec == "aac", !privateData.isEmpty {
                var t = MP4Parser.Track()
                MP4SampleEntry.applyAudioSpecificConfig(privateData, into: &t)
                if let ch = t.channels { a.channels = ch }
            }
            if a.codec == "opus" {
                // Opus always decodes at 48 kHz; SamplingFrequency may hold the input rate.
                a.sampleRate = 48000
                if privateData.count >= 10, privateData[9] > 0 { a.channels = Int(privateData[9]) }
            }
            if a.codec.hasPrefix("pcm_s"), let bits = a.bits { a.codec = "pcm_s\(bits)le" }
            found = a
        }
        return found
    }

    private static func readTags(_ src: some ByteSource, _ tagsElement: EBMLElement, into tags: inout TagSet) throws(MediaError) {
        try children(src, tagsElement) { tag, _ throws(MediaError) in
            guard tag.id == 0x7373 else { return }
            try children(src, tag) { simple, _ throws(MediaError) in
                guard simple.id == 0x67C8 else { return }
                var key = "", value = ""
                try children(src, simple) { c, d throws(MediaError) in
                    if c.id == 0x45A3 { key = EBML.string(d) }
                    if c.id == 0x4487 { value = EBML.string(d) }
                }
                if key.uppercased() == "DATE_RECORDED" { key = "date_recorded" }
                tags.add(key, value)
            }
        }
    }

    static func codecName(_ id: String) -> String {
        switch id {
        case "A_OPUS": return "opus"
        case "A_VORBIS": return "vorbis"
        case "A_FLAC": return "flac"
        case "A_MPEG/L3": return "mp3"
        case "A_AC3": return "ac3"
        case "A_ALAC": return "alac"
        case "A_PCM/INT/LIT": return "pcm_s"
        case "A_PCM/FLOAT/IEEE": return "pcm_f32le"
        default: return id.hasPrefix("A_AAC") ? "aac" : id
        }
    }
}
