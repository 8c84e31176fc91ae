/// A value holding key material, a password or a token, describing itself without it.
///
/// Logs, `String(describing:)`, `String(reflecting:)`, `dump` and any description of a value
/// that contains one (a service printed by the lifecycle library, an error) go through these
/// three conformances; the default ones would print the secret field by field. A conforming
/// type lists its fields in `customMirror`, each secret wrapped in ``RedactedSecret``, and
/// gets its descriptions from that mirror.
public protocol SecretRedacting: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {}

extension SecretRedacting {
    /// `TypeName(field: value, secret: <redacted>)`, from the redacted mirror.
    public var description: String {
        let fields = customMirror.children.map { child in
            "\(child.label ?? "_"): \(String(reflecting: child.value))"
        }
        return "\(Self.self)(\(fields.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }
}

/// Stands for a secret in a description: says whether one is there, never what it is.
public struct RedactedSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Whether the secret is present.
    public let isPresent: Bool

    /// Stands for `secret` (nil: absent).
    public init<Secret>(_ secret: Secret?) {
        isPresent = secret != nil
    }

    public var description: String { isPresent ? "<redacted>" : "nil" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
