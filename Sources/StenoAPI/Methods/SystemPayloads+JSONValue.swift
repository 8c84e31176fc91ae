import Foundation

// The system methods' results build their JSON directly: `version`, `whoami` and `status` are
// the calls every client makes first, and the test of JSONValueRepresentable checks that each
// equals its Encodable encoding.

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
