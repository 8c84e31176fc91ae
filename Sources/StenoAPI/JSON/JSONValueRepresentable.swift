import Foundation

/// A value that builds its JSON directly, for results on hot paths: the RPC server uses
/// `jsonValue` instead of the Codable bridge when a result conforms. The output must equal
/// what `JSONValueEncoder` produces (a test checks each conforming type).
public protocol JSONValueRepresentable {
    /// The value as JSON, identical to its `Encodable` encoding.
    var jsonValue: JSONValue { get }
}

extension JSONValue {
    /// A date as `JSONValueEncoder` writes it.
    public init(date: Date) {
        self = ISO8601Timestamp.string(from: date).map(JSONValue.string) ?? .null
    }
}

extension VersionInfo: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        ["version": .string(version), "apiVersion": .int(Int64(apiVersion))]
    }
}

extension CallerInfo: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = ["uid": .int(Int64(uid)), "role": .string(role.rawValue)]
        if let user { object["user"] = .string(user) }
        return .object(object)
    }
}

extension SystemStatus: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "version": .string(version),
            "startedAt": JSONValue(date: startedAt),
            "uptimeSeconds": .double(uptimeSeconds),
            "schemaVersion": .int(Int64(schemaVersion)),
            "databasePath": .string(databasePath),
            "socketPath": .string(socketPath),
            "inboxPath": .string(inboxPath),
            "counts": .object(counts.mapValues { .int($0) }),
            "queueDepth": .int(queueDepth),
            "caller": caller.jsonValue,
        ]
        if let deviceAgent { object["deviceAgent"] = .string(deviceAgent) }
        return .object(object)
    }
}
