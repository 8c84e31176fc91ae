import Crypto
import Foundation
import StenoCore

/// How a forgotten person is known without their address: the catalog keeps the SHA-256 of
/// the lowercased address, and their entries read ``redactedAddress(key:)``.
///
/// The hash is not a secret: whoever already knows an address can tell that it was forgotten.
/// That is what lets a later sync recognise the person; the address itself is never stored.
public enum ForgottenPerson {
    /// The key of `email`: hex SHA-256 of the address lowercased and trimmed.
    public static func key(of email: String) -> String {
        let address = normalized(email)
        return SHA256.hash(data: Data(address.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// What the entries of the person with `key` read: distinct per person, an address no mail
    /// reaches (`.invalid` is reserved for that).
    public static func redactedAddress(key: String) -> String {
        "forgotten-\(key.prefix(16))@redacted.invalid"
    }

    /// Whether `email` is one of those entries.
    public static func isRedacted(_ email: String) -> Bool {
        email.hasPrefix("forgotten-") && email.hasSuffix("@redacted.invalid")
    }

    /// `email` as the catalog keys people: trimmed, lowercased.
    public static func normalized(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// `changes` with each of the forgotten `keys` redacted; `changes` itself when none is
    /// forgotten. Each distinct address is hashed once.
    public static func redacting(_ changes: CalendarChangeSet, keys: Set<String>) -> CalendarChangeSet {
        guard !keys.isEmpty else { return changes }
        var verdicts: [String: String?] = [:]
        return changes.redactingPeople { email in
            if let known = verdicts[email] { return known }
            let key = key(of: email)
            let verdict = keys.contains(key) ? redactedAddress(key: key) : nil
            verdicts[email] = verdict
            return verdict
        }
    }
}
