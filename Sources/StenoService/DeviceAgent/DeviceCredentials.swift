import Crypto
import Foundation

/// Device tokens and pairing codes: how they are made, read and kept.
///
/// Only SHA-256 digests are stored. A token is looked up by its digest, so what a lookup's
/// timing could reveal is about a digest, never about the token: finding a token from its
/// digest is as hard as guessing its 256 random bits.
enum DeviceCredentials {
    /// The token prefix, so a leaked token is recognisable (secret scanners, logs).
    static let tokenPrefix = "stdv_"
    /// Unambiguous letters and digits for codes typed by hand (no I, L, O, U).
    static let pairingAlphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// Eight characters of 32: 40 bits, for ten minutes and one use, with failures slowed down.
    static let pairingLength = 8
    /// How long a pairing code works.
    static let pairingLifetime: TimeInterval = 600

    /// A new token: the prefix and 256 random bits in base64url.
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return tokenPrefix + base64
    }

    /// The stored digest of a token.
    static func digest(token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// The token of an `Authorization: Device <token>` header, nil when it is not one.
    static func token(fromAuthorization header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "device" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        // A token is ASCII of a known length; anything else is not worth hashing.
        guard token.hasPrefix(tokenPrefix), token.utf8.count <= 128, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return token
    }

    /// A new pairing code, `XXXX-XXXX`.
    static func newPairingCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let characters = (0..<pairingLength).map { _ in pairingAlphabet[Int.random(in: 0..<pairingAlphabet.count, using: &generator)] }
        return String(characters.prefix(4)) + "-" + String(characters.suffix(4))
    }

    /// A typed pairing code in its canonical form: upper case, without `-` and spaces, with
    /// the letters people confuse read as the digits they look like. Nil when it cannot be one.
    static func canonicalPairingCode(_ typed: String) -> String? {
        var canonical = ""
        for character in typed.uppercased() where character != "-" && character != " " {
            switch character {
            case "O": canonical.append("0")
            case "I", "L": canonical.append("1")
            default:
                guard pairingAlphabet.contains(character) else { return nil }
                canonical.append(character)
            }
        }
        return canonical.count == pairingLength ? canonical : nil
    }

    /// The stored digest of a pairing code (in canonical form).
    static func digest(pairingCode canonical: String) -> Data {
        Data(SHA256.hash(data: Data(("pairing:" + canonical).utf8)))
    }
}
