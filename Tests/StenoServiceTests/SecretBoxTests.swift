import Foundation
import StenoCalendar
import Testing

@testable import StenoService

@Suite("Secrets at rest")
struct SecretBoxTests {
    let root = NSTemporaryDirectory() + "steno-secrets-" + UUID().uuidString

    @Test func theKeyFileIsCreatedPrivateAndReusedAcrossStarts() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/secret.key"
        let first = try SecretBox.loadOrCreate(keyFile: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.size] as? Int) == 32)
        let credentials = CalendarCredentials(password: "app-specific-pässword", refreshToken: "1//refresh")
        let sealed = try first.seal(credentials)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("pässword"))
        // A restart reads the same key and opens what the first run sealed.
        let second = try SecretBox.loadOrCreate(keyFile: path)
        #expect(try second.unseal(sealed) == credentials)
        // Two seals of the same secret differ (fresh nonce).
        #expect(try first.seal(credentials) != sealed)
    }

    @Test func aKeyOthersMayReadOrAnotherKeyIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/secret.key"
        let box = try SecretBox.loadOrCreate(keyFile: path)
        let sealed = try box.seal(CalendarCredentials(password: "x"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect(throws: SecretBoxError.self) { _ = try SecretBox.loadOrCreate(keyFile: path) }
        let other = SecretBox(keyBytes: Array(repeating: 7, count: 32))
        #expect(throws: SecretBoxError.self) { _ = try other.unseal(sealed) }
        var damaged = sealed
        damaged[damaged.count - 1] ^= 1
        #expect(throws: SecretBoxError.self) { _ = try box.unseal(damaged) }
        #expect(!CalendarCredentials(password: "hunter2").description.contains("hunter2"))
    }
}
