import Foundation
import StenoAPI
import StenoCatalog
import StenoCore

/// `people.show` and `people.forget`: what the catalog holds about a person, and their erasure.
struct PeopleMethods: Sendable {
    let store: any PeopleStore & AccessLogStore

    func register(in table: inout RPCMethodTable) {
        let methods = self
        table.register(StenoMethods.peopleShow, access: .admin) { _, params in
            try await methods.store.person(email: try Self.address(params.email))
        }
        table.register(StenoMethods.peopleForget, access: .admin) { call, params in
            try await methods.forget(try Self.address(params.email), call: call)
        }
    }

    /// Erases `address`, and logs it under its redacted form: the log never holds the address.
    func forget(_ address: String, call: RPCCall) async throws -> ForgetReport {
        let report = try await store.forget(email: address, now: Date())
        let actor = RecordingMethods.actor(call.caller)
        try await store.logAccess(
            AccessDraft(action: .forget, recordingIDs: nil, actor: actor, uid: call.caller.credentials.uid, detail: report.redactedAddress))
        call.logger.notice(
            "a person was forgotten",
            metadata: [
                "person": .string(report.redactedAddress), "events": "\(report.events)", "recordings": "\(report.recordings)",
                "meetings": "\(report.meetings)", "by": .string(actor), "uid": "\(call.caller.credentials.uid)",
            ])
        return report
    }

    /// `email` trimmed and lowercased; refused unless it reads as one address.
    static func address(_ email: String) throws -> String {
        let address = ForgottenPerson.normalized(email)
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, address.count <= 320,
            !address.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else {
            throw RPCError.invalidParams("\(String(email.prefix(320)).debugDescription) is not an email address (name@example.com)")
        }
        guard !ForgottenPerson.isRedacted(address) else {
            throw RPCError.invalidParams("\(address) is the redacted entry of a forgotten person: it names no one")
        }
        return address
    }
}
