import Foundation

/// Rules for user fields, shared by the daemon (which enforces them) and the CLI (which can
/// reject bad input before a round trip).
public enum UserValidation {
    /// Problems found in a user's fields, each with a message a person can act on.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The field at fault (`name`, `emails`, `uids`).
        public var field: String
        /// What is wrong and how to fix it.
        public var message: String
        public var description: String { "\(field): \(message)" }
    }

    /// A user name is a folder name under the inbox: 1–64 characters of letters, digits, `.`, `_`, `-`,
    /// not starting with `.` or `-`.
    public static func checkName(_ name: String) throws(Problem) {
        let allowed = name.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-")
        }
        guard !name.isEmpty, name.count <= 64, allowed, let first = name.first, first != ".", first != "-" else {
            throw Problem(
                field: "name",
                message: "\"\(name)\" is not a valid user name: use 1–64 letters, digits, '.', '_' or '-', not starting with '.' or '-'"
            )
        }
    }

    /// Normalises an email address (trimmed, lowercased) and checks its rough shape.
    public static func normalizedEmail(_ email: String) throws(Problem) -> String {
        let trimmed = email.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !trimmed.contains(" ") else {
            throw Problem(field: "emails", message: "\"\(email)\" is not an email address (expected name@domain)")
        }
        return trimmed
    }
}
