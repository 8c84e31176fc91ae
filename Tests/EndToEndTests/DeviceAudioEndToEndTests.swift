#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// A phone plays a recording its owner may see: `GET /sync/recordings/{id}/audio` on a real
/// stenod's listener, whole or by ranges, and refused for another member's device, a revoked
/// token, and files gone, changed or replaced by a symlink since they were catalogued.
@Suite(
    "Phones play recordings", .blocksThreads, .serialized,
    .enabled(if: TestRequirement.runs(when: canSwitchUsers), "needs root and setpriv to add a member's device"))
struct DeviceAudioEndToEndTests {
    /// A daemon whose caller (root) is alice, an admin, with one ready recording of hers; and
    /// bob, a member, with a device of his own.
    func setUp() async throws -> (TestDaemon, DeviceAgentHTTP, Recording, bytes: [UInt8], bobsToken: String) {
        let daemon = try TestDaemon(
            config: "socket_group = \"\(otherUID)\"\n" + DeviceAgentEndToEndTests.config + "\n[device_agent]\nlisten = \"127.0.0.1:0\"\n")
        let client = try daemon.client()
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "alice", emails: ["alice@example.com"], uids: [getuid()], role: .admin))
        _ = try client.call(StenoMethods.usersAdd, UserAddParams(name: "bob", emails: ["bob@example.com"], uids: [secondUID]))
        let folder = daemon.inboxDirectory + "/alice"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let bytes = [UInt8](IngestionEndToEndTests.wav(seed: 7))
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/review.wav"))
        let ready = try poll(
            timeout: 60, { try client.call(StenoMethods.recordingsList, RecordingListParams(limit: 10)).items },
            until: { $0.first?.status == .ready })
        let recording = try #require(ready.first, "the recording was not ingested:\n\(daemon.log.suffix(2000))")
        let added = try runAs(
            uid: secondUID, try TestDaemon.executable(named: "steno"),
            ["--socket", daemon.socketPath, "devices", "add", "--label", "bobs-phone", "--json"])
        try #require(added.status == 0, "\(added.stderr)")
        let bobsToken = try JSONValueDecoder().decode(DeviceAddResult.self, from: try JSONValue.parse(added.stdout)).token
        return (daemon, try DeviceAgentHTTP(daemon: daemon), recording, bytes, bobsToken)
    }

    @Test func theOwnersPhoneGetsTheWholeFileAndEveryKindOfRange() async throws {
        let (daemon, http, recording, bytes, bobsToken) = try await setUp()
        defer { daemon.shutdown() }
        let (token, _) = try await http.pair(daemon)
        let path = "/sync/recordings/\(recording.id)/audio"
        let size = bytes.count

        let whole = try await http.bytes(path, token: token)
        #expect(whole.status == 200 && whole.body == bytes, "\(whole.status) \(whole.body.count) of \(size) bytes")
        #expect(whole.headers["content-type"] == "audio/wav" && whole.headers["accept-ranges"] == "bytes")
        let etag = try #require(whole.headers["etag"])
        #expect(etag == "\"\(recording.contentHash ?? "")\"")

        for (range, expected, contentRange) in [
            ("bytes=0-0", Array(bytes[0...0]), "bytes 0-0/\(size)"),
            ("bytes=100-199", Array(bytes[100...199]), "bytes 100-199/\(size)"),
            ("bytes=-50", Array(bytes[(size - 50)...]), "bytes \(size - 50)-\(size - 1)/\(size)"),
        ] {
            let part = try await http.bytes(path, token: token, headers: [("Range", range)])
            #expect(part.status == 206 && part.body == expected, "\(range): \(part.status), \(part.body.count) bytes")
            #expect(part.headers["content-range"] == contentRange, "\(range): \(part.headers)")
        }
        let past = try await http.bytes(path, token: token, headers: [("Range", "bytes=\(size)-")])
        #expect(past.status == 416 && past.headers["content-range"] == "bytes */\(size)", "\(past.status) \(past.headers)")
        let current = try await http.bytes(path, token: token, headers: [("If-None-Match", etag)])
        #expect(current.status == 304 && current.body.isEmpty)
        let stale = try await http.bytes(path, token: token, headers: [("Range", "bytes=0-9"), ("If-Range", "\"other\"")])
        #expect(stale.status == 200 && stale.body == bytes, "a range of another version is the whole file")

        // Bob may not see alice's recording: his phone is told it does not exist.
        let bobs = try await http.bytes(path, token: bobsToken)
        #expect(bobs.status == 404, "\(bobs.status)")
        #expect(try await http.bytes("/sync/recordings/999999/audio", token: token).status == 404)
        // A revoked device is told to pair again.
        let devices = try daemon.client().call(StenoMethods.devicesList, PageParams(limit: 10)).items
        for device in devices where device.owner == "alice" {
            _ = try daemon.client().call(StenoMethods.devicesRevoke, DeviceIDParams(id: device.id))
        }
        #expect(try await http.bytes(path, token: token).status == 401)
    }

    @Test func filesGoneChangedOrReplacedByASymlinkAreRefusedWithTheReason() async throws {
        let (daemon, http, recording, bytes, _) = try await setUp()
        defer { daemon.shutdown() }
        let (token, _) = try await http.pair(daemon)
        let path = "/sync/recordings/\(recording.id)/audio"
        let file = daemon.inboxDirectory + "/alice/review.wav"
        // Changed since it was catalogued (the watcher would read it again soon; the phone is
        // refused at once and the file is queued for ingest).
        let appended = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        appended.seekToEndOfFile()
        appended.write(Data([1, 2, 3]))
        try appended.close()
        let changed = try await http.bytes(path, token: token)
        let reason = String(decoding: changed.body, as: UTF8.self)
        #expect(changed.status == 409 && reason.contains("has changed"), "\(changed.status) \(reason)")
        #expect(daemon.log.contains("a device asked for audio that cannot be sent"), "\(daemon.log.suffix(1000))")

        // Replaced by a symlink to a file elsewhere with the same bytes.
        let outside = daemon.root + "/elsewhere.wav"
        try Data(bytes).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.removeItem(atPath: file)
        #expect(symlink(outside, file) == 0)
        let linked = try await http.bytes(path, token: token)
        #expect(linked.status == 409 || linked.status == 410, "\(linked.status) \(String(decoding: linked.body, as: UTF8.self))")
        #expect(linked.status != 200 && !String(decoding: linked.body, as: UTF8.self).contains("RIFF"))

        try FileManager.default.removeItem(atPath: file)
        let gone = try await http.bytes(path, token: token)
        #expect(gone.status == 410 || gone.status == 404, "\(gone.status) \(String(decoding: gone.body, as: UTF8.self))")
    }
}
