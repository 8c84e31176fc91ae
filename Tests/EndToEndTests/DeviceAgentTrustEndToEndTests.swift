import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import StenoTestTraits
import Testing

/// Who the device listener believes: the pairing throttle is not reset by a device that works,
/// `X-Forwarded-For` counts only from a trusted proxy, and a TLS key others may read or that
/// does not match its certificate stops start-up with the fix named.
@Suite("Device agent: whom the listener trusts", .blocksThreads, .serialized)
struct DeviceAgentTrustEndToEndTests {
    /// Whether a check that needs root and setpriv must run: always under CI.
    static var mayAct: Bool { TestRequirement.runs(when: canSwitchUsers) }

    @Test func aWorkingTokenBetweenWrongCodesDoesNotResetTheThrottle() async throws {
        let daemon = try DeviceAgentEndToEndTests.daemon()
        let http = try DeviceAgentHTTP(daemon: daemon)
        let (token, _) = try await http.pair(daemon)
        var statuses: [Int] = []
        for attempt in 0..<10 {
            let guess = try await http.post("/sync/devices/register", json: ["pairingCode": .string("ZZZZ-ZZZ\(attempt)")])
            statuses.append(guess.status)
            if guess.status == 429 { break }
            // The guesser's own phone works between guesses; that must not wipe the count.
            #expect(try await http.get("/sync/events/changes?since=0", token: token).status == 200)
        }
        #expect(statuses.last == 429, "wrong codes interleaved with a working token were never slowed down: \(statuses)")
        // While the address is shut out of guessing, its paired phone is still served.
        #expect(try await http.get("/sync/events/changes?since=0", token: token).status == 200)
        let another = try await http.post("/sync/devices/register", json: ["pairingCode": "ZZZZ-ZZZZ"])
        #expect(another.status == 429)
    }

    /// One pairing guess over the unix listener as `uid`, claiming `forwardedFor`; the status.
    func guess(socket: String, uid: UInt32, forwardedFor: String, attempt: Int) throws -> Int {
        let result = try runAs(
            uid: uid, "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--unix-socket", socket, "-H", "X-Forwarded-For: \(forwardedFor)",
                "-H", "Content-Type: application/json", "--data", #"{"pairingCode":"ZZZZ-ZZZ\#(attempt % 10)"}"#,
                "http://localhost/sync/devices/register",
            ])
        return Int(result.stdout) ?? -1
    }

    @Test(.enabled(if: mayAct, "needs root, setpriv and curl to connect as other uids"))
    func aUnixListenerBelievesForwardedForOnlyFromItsTrustedProxy() throws {
        let folder = NSTemporaryDirectory() + "steno-device-unix-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let socket = folder + "/agent.sock"
        let daemon = try TestDaemon(
            config: "[device_agent]\nlisten = \"unix:\(socket)\"\ntrusted_proxies = [\"user:\(secondUID)\"]\n")
        _ = try poll(timeout: 30, { FileManager.default.fileExists(atPath: socket) }, until: { $0 })
        #expect(!daemon.log.contains("X-Forwarded-For is ignored"), "the proxy's user is named, yet stenod warns it is not")

        // Anyone else on the machine claiming a fresh client address each time is still one client.
        var untrusted: [Int] = []
        for attempt in 0..<10 {
            untrusted.append(try guess(socket: socket, uid: otherUID, forwardedFor: "10.9.0.\(attempt)", attempt: attempt))
            if untrusted.last == 429 { break }
        }
        #expect(untrusted.first == 401 && untrusted.last == 429, "a local user dodged the throttle with X-Forwarded-For: \(untrusted)")

        // The trusted proxy's forwarded addresses are separate clients…
        let separate = try (0..<8).map { try guess(socket: socket, uid: secondUID, forwardedFor: "10.8.0.\($0)", attempt: $0) }
        #expect(separate.allSatisfy { $0 == 401 }, "phones behind the proxy were counted as one: \(separate)")
        // …and one of them guessing again and again is slowed down.
        var repeated: [Int] = []
        for attempt in 0..<10 {
            repeated.append(try guess(socket: socket, uid: secondUID, forwardedFor: "10.7.0.1", attempt: attempt))
            if repeated.last == 429 { break }
        }
        #expect(repeated.last == 429, "\(repeated)")
    }

    @Test func trustingLoopbackAsAProxyIsWarnedAbout() throws {
        let daemon = try DeviceAgentEndToEndTests.daemon("trusted_proxies = [\"127.0.0.1\"]\n")
        let logged = try poll(timeout: 30, { daemon.log }, until: { $0.contains("device_agent.trusted_proxies names 127.0.0.1") })
        #expect(logged.contains("every local user can connect from there"), "\(daemon.log)")
    }

    /// Starts stenod with a TLS listener on `certificate` and `key`; it is expected to stop.
    func startUp(certificate: String, key: String, in folder: String) throws -> CommandResult {
        try "[device_agent]\nlisten = \"127.0.0.1:0\"\ntls_certificate = \"\(certificate)\"\ntls_key = \"\(key)\"\n"
            .write(toFile: folder + "/stenod.toml", atomically: true, encoding: .utf8)
        return try runCommand(
            try TestDaemon.executable(named: "stenod"),
            ["--config", folder + "/stenod.toml", "--socket", folder + "/s.sock", "--data-dir", folder + "/data", "--inbox", folder + "/inbox"])
    }

    /// A self-signed certificate and its key (mode 600) named `name` in `folder`.
    func makeCertificate(_ name: String, in folder: String) throws -> (certificate: String, key: String) {
        let paths = (certificate: "\(folder)/\(name)-cert.pem", key: "\(folder)/\(name)-key.pem")
        let made = try runCommand(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-keyout", paths.key, "-out", paths.certificate,
            ])
        #expect(made.status == 0, "\(made.stderr)")
        chmod(paths.key, 0o600)
        return paths
    }

    @Test(.enabled(if: TestRequirement.runs(when: TestRequirement.hasExecutable("/usr/bin/openssl")), "needs openssl to make a certificate"))
    func aKeyOthersMayReadOrOfAnotherCertificateStopsStartUp() throws {
        let folder = NSTemporaryDirectory() + "steno-device-key-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try makeCertificate("first", in: folder)
        let second = try makeCertificate("second", in: folder)

        chmod(first.key, 0o644)
        let readable = try startUp(certificate: first.certificate, key: first.key, in: folder)
        #expect(readable.status != 0)
        #expect(readable.stderr.contains(first.key) && readable.stderr.contains("chmod 600"), "\(readable.stderr)")
        chmod(first.key, 0o600)

        let mismatched = try startUp(certificate: first.certificate, key: second.key, in: folder)
        #expect(mismatched.status != 0)
        #expect(mismatched.stderr.contains("is not the private key of the certificate"), "\(mismatched.stderr)")

        try "not a key".write(toFile: folder + "/broken-key.pem", atomically: true, encoding: .utf8)
        chmod(folder + "/broken-key.pem", 0o600)
        let broken = try startUp(certificate: first.certificate, key: folder + "/broken-key.pem", in: folder)
        #expect(broken.status != 0)
        #expect(broken.stderr.contains("broken-key.pem"), "\(broken.stderr)")
    }
}
