import Foundation
import StenoTesting
import Testing
@testable import StenoMedia

/// External command-line tools the corpus tests use (never the parsers themselves).
enum ExternalTools {
    static let installHint = "install them with: apt-get update && apt-get install -y ffmpeg sox libsox-fmt-all"

    /// Full path of `name` on PATH, if present.
    static func path(_ name: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for d in dirs {
            let p = "\(d)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    static let ffmpeg = path("ffmpeg")
    static let sox = path("sox")
    static var missing: [String] { [ffmpeg == nil ? "ffmpeg" : nil, sox == nil ? "sox" : nil].compactMap { $0 } }
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Run when the tools are there, and in CI always (so that a missing tool fails there).
    static var shouldRun: Bool { missing.isEmpty || isCI }

    /// True when the tools are present; otherwise records a failure saying what to install.
    static func require() -> Bool {
        if missing.isEmpty { return true }
        Issue.record("\(missing.joined(separator: " and ")) not found on PATH; \(installHint)")
        return false
    }
}

/// Runs a program; returns its exit status and the number of bytes it wrote to stdout
/// (counted in chunks, so decoding an hour of audio does not hold it in memory).
@discardableResult
func run(_ executable: String, _ arguments: [String], countOutput: Bool = false) throws -> (status: Int32, outputBytes: Int, stderr: String) {
    let p = try ChildProcess(executable, arguments, standardOutput: countOutput ? .pipe : .null, standardError: .pipe)
    var total = 0
    if let h = p.standardOutput {
        while true {
            let d = h.availableData
            if d.isEmpty { break }
            total += d.count
        }
    }
    let errData = p.standardError?.readDataToEndOfFile() ?? Data()
    p.waitUntilExit()
    return (p.terminationStatus, total, String(decoding: errData.prefix(2000), as: UTF8.self))
}

/// A fresh temporary directory, removed by `cleanup()`.
struct TempDir {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "steno-media-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// The repository's sample recordings folder (Media/recordings), found from this file.
func sampleRecordingsFolder(filePath: String = #filePath) -> String {
    var url = URL(fileURLWithPath: filePath).resolvingSymlinksInPath()
    for _ in 0..<3 { url.deleteLastPathComponent() }  // StenoMediaTests, Tests, repo root
    return url.appendingPathComponent("Media/recordings").path
}

/// Probes a buffer and classifies the outcome; never lets anything but a MediaError out.
func probeBytes(_ bytes: [UInt8]) -> Result<MediaInfo, MediaError> {
    do {
        return .success(try MediaProbe.probe(MemoryByteSource(bytes)))
    } catch {
        return .failure(error)
    }
}

func readFile(_ path: String) -> [UInt8] {
    guard let d = FileManager.default.contents(atPath: path) else { return [] }
    return [UInt8](d)
}
