#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation
import StenoCalendar
import StenoCore

/// Seals account secrets with AES-256-GCM under a key file only the service can read.
///
/// The key file is created on first start (32 random bytes, mode 0600, never overwritten); a
/// key file others may read is refused, since it would expose every stored password.
public struct SecretBox: Sendable {
    /// The raw key (SymmetricKey itself is not Sendable in this swift-crypto).
    let keyBytes: [UInt8]
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    /// Binds sealed boxes to their purpose, so a blob of another kind cannot be passed off as one.
    static let associatedData = Data("steno calendar credentials v1".utf8)

    /// A box with a given 32-byte key (tests).
    public init(keyBytes: [UInt8]) {
        self.keyBytes = keyBytes
    }

    /// Opens the key file at `path`, creating it when it does not exist.
    ///
    /// - Throws: ``SecretBoxError`` naming the file and what to do.
    public static func loadOrCreate(keyFile path: String) throws(SecretBoxError) -> SecretBox {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let created = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if created >= 0 {
            var bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
            defer { for index in bytes.indices { bytes[index] = 0 } }
            let written = bytes.withUnsafeBytes { write(created, $0.baseAddress, $0.count) }
            let synced = fsync(created)
            close(created)
            guard written == 32, synced == 0 else {
                unlink(path)
                throw .unusable(path: path, reason: "could not write the new key")
            }
        } else if errno != EEXIST {
            throw .unusable(path: path, reason: String(cString: strerror(errno)))
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw .unusable(path: path, reason: String(cString: strerror(errno))) }
        guard status.st_mode & 0o077 == 0 else {
            throw .unusable(
                path: path,
                reason: "it may be read by other users (mode \(String(status.st_mode & 0o777, radix: 8))); run `chmod 600 \(path)`")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unusable(path: path, reason: "it cannot be read by this user")
        }
        guard data.count == 32 else {
            throw .unusable(path: path, reason: "it holds \(data.count) bytes, not a 32-byte key")
        }
        return SecretBox(keyBytes: Array(data))
    }

    /// Seals credentials.
    ///
    /// Foundation's coder, not StenoJSON's, on purpose: sealed credentials store their dates as
    /// milliseconds since 1970, and `JSONValueEncoder` writes dates as ISO 8601 text, so boxes
    /// already in catalogs would no longer open.
    public func seal(_ credentials: CalendarCredentials) throws -> Data {
        try seal(credentials, purpose: Self.associatedData)
    }

    /// Opens sealed credentials.
    ///
    /// - Throws: ``SecretBoxError/cannotOpen(_:)`` when the box was sealed with another key
    ///   (the key file was replaced) or is damaged.
    public func unseal(_ sealed: Data) throws(SecretBoxError) -> CalendarCredentials {
        guard let credentials = try? unseal(CalendarCredentials.self, from: sealed, purpose: Self.associatedData) else {
            throw .cannotOpen(
                "the stored credentials cannot be decrypted (was the key file replaced?); add the account's credentials again")
        }
        return credentials
    }

    /// Seals a value as JSON, bound to `purpose` (a box sealed for one purpose does not open for another).
    func seal<Value: Encodable>(_ value: Value, purpose: Data) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let plain = try encoder.encode(value)
        guard let combined = try AES.GCM.seal(plain, using: key, authenticating: purpose).combined else {
            throw SecretBoxError.cannotOpen("AES-GCM produced no combined box")
        }
        return combined
    }

    /// Opens a value sealed by ``seal(_:purpose:)`` for the same purpose.
    func unseal<Value: Decodable>(_ type: Value.Type, from sealed: Data, purpose: Data) throws -> Value {
        let box = try AES.GCM.SealedBox(combined: sealed)
        let plain = try AES.GCM.open(box, using: key, authenticating: purpose)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(type, from: plain)
    }
}

extension SecretBox: SecretRedacting {
    /// Never the key: a description of the box is all a log line may get.
    public var customMirror: Mirror {
        Mirror(self, children: ["key": RedactedSecret(keyBytes)], displayStyle: .struct)
    }
}

/// Why secrets cannot be sealed or opened.
public enum SecretBoxError: Error, Sendable, Hashable, CustomStringConvertible {
    case unusable(path: String, reason: String)
    case cannotOpen(String)

    public var description: String {
        switch self {
        case .unusable(let path, let reason): return "the secrets key file \(path) is unusable: \(reason)"
        case .cannotOpen(let message): return message
        }
    }
}
