import Foundation
import StenoTesting
import StenoTestTraits
import Testing

/// `device` accounts come from `steno devices`; `steno accounts add device` says so.
@Suite("steno accounts add device", .blocksThreads)
struct AccountsAddDeviceCLITests {
    @Test func pointsToStenoDevicesWithoutAskingTheDaemon() throws {
        // No daemon at this socket: a command that tried to reach one would exit 3.
        let socket = NSTemporaryDirectory() + "steno-no-daemon-\(UUID().uuidString.prefix(8)).sock"
        let steno = try TestDaemon.executable(named: "steno")
        for arguments in [["accounts", "add", "device"], ["accounts", "add", "device", "--label", "my-iphone"]] {
            let result = try runCommand(steno, ["--socket", socket] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("steno devices pair") && result.stderr.contains("steno devices add"), "\(result.stderr)")
            #expect(result.stdout.isEmpty, "\(result.stdout)")
        }
    }
}
