import Foundation
import StenoTesting
import Testing

/// The systemd units in `deploy/` stay hardened: `systemd-analyze security` rates each at 2.0
/// or lower, and the socket's group is never the daemon's own group (which alone may read the
/// catalog).
@Suite("Deployed systemd units", .enabled(if: DeployUnits.shouldRun, "needs systemd-analyze (apt-get install systemd)"))
struct DeployUnitsTests {
    @Test(arguments: ["stenod.service", "steno-revalidate.service"])
    func exposureIsAtMostTwo(unit: String) throws {
        guard let analyze = DeployUnits.systemdAnalyze else {
            Issue.record("systemd-analyze not found on PATH; apt-get install systemd")
            return
        }
        let path = DeployUnits.folder + "/" + unit
        // --threshold is out of 100: 20 is the 2.0 shown in the summary line.
        let result = try ProcessRunner.run(analyze, ["security", "--offline=true", "--threshold=20", path])
        let summary = (result.stdout + result.stderr).split(separator: "\n").last { $0.contains("Overall exposure level") } ?? "no summary"
        #expect(result.status == 0, "\(unit): \(summary)")
    }

    @Test func socketGroupIsNotTheDaemonsGroup() throws {
        let service = try DeployUnits.settings(of: "stenod.service")
        let socket = try DeployUnits.settings(of: "stenod.socket")
        let daemonGroup = try #require(service["Group"])
        let socketGroup = try #require(socket["SocketGroup"])
        #expect(socketGroup != daemonGroup)
        #expect(socket["SocketMode"] == "0660")
        #expect(service["LoadCredential"]?.hasPrefix("steno-secret-key:") == true)
        #expect(service["CapabilityBoundingSet"] == "")
    }
}

enum DeployUnits {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy").path

    static let systemdAnalyze: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/systemd-analyze" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs where the tool is present, and under CI always (so a missing tool fails there).
    static var shouldRun: Bool { systemdAnalyze != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The `Key=value` lines of a unit (the last one wins, as in systemd).
    static func settings(of unit: String) throws -> [String: String] {
        let text = try String(contentsOfFile: folder + "/" + unit, encoding: .utf8)
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return settings
    }
}
