import Foundation
import StenoCatalog
import StenoCore
import StenoJSON

/// A kind of job: the name it is queued under and the JSON shapes of its payload and result.
///
/// Payloads and results are stored as JSON text in the catalog and shown by `jobs.list` and
/// `jobs.get`; a kind's `Payload` and `Result` are their only writers and readers, so no
/// handler parses strings and no payload is built by hand. Queued jobs outlive a daemon
/// version: a change to a payload's keys or types must still read what an older version
/// queued.
public protocol JobKind: Sendable {
    /// What a job of this kind is given.
    associatedtype Payload: Codable & Sendable
    /// What a job of this kind records when it succeeds.
    associatedtype Result: Codable & Sendable

    /// The kind as stored in the queue, e.g. `system.noop`.
    static var name: String { get }
}

extension JobKind {
    /// A job of this kind with `payload`.
    ///
    /// - Throws: `EncodingError` when the payload cannot be written as JSON.
    public static func draft(
        _ payload: Payload, priority: Int = JobPriority.normal, runAt: Date? = nil, uniqueKey: String? = nil
    ) throws -> JobDraft {
        let json = try JSONValueEncoder().encode(payload)
        return JobDraft(kind: name, payload: json.serializedString, priority: priority, runAt: runAt, uniqueKey: uniqueKey)
    }

    /// The payload of a job of this kind.
    ///
    /// - Throws: `JobError.permanent` naming the bad field: a payload that does not read will
    ///   not read on the next attempt either.
    public static func payload(of job: Job) throws(JobError) -> Payload {
        try payload(from: job.payload)
    }

    /// A payload of this kind from its JSON text.
    ///
    /// - Throws: `JobError.permanent` naming the bad field.
    public static func payload(from text: String) throws(JobError) -> Payload {
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw JobError.permanent("the \(name) payload is not JSON (\(error)): \(text.prefix(200))")
        }
        do {
            return try JSONValueDecoder().decode(Payload.self, from: json)
        } catch let error as DecodingError {
            throw JobError.permanent("the \(name) payload does not read: \(error.humanDescription(root: "payload")): \(text.prefix(200))")
        } catch {
            throw JobError.permanent("the \(name) payload does not read: \(error): \(text.prefix(200))")
        }
    }

    /// A result as the queue stores it: JSON text, nil for a result that is JSON `null`.
    ///
    /// - Throws: `EncodingError` when the result cannot be written as JSON.
    static func storedResult(_ result: Result) throws -> String? {
        let json = try JSONValueEncoder().encode(result)
        if case .null = json { return nil }
        return json.serializedString
    }
}

/// One claimed job with its payload read, as a handler gets it.
public struct JobAttempt<Kind: JobKind>: Sendable {
    /// The claim, with the job as it was right after it (`running`, this attempt counted).
    public var claim: ClaimedJob
    /// The job's payload.
    public var payload: Kind.Payload

    /// An attempt at the claimed job with its decoded payload.
    public init(claim: ClaimedJob, payload: Kind.Payload) {
        self.claim = claim
        self.payload = payload
    }

    /// The job.
    public var job: Job { claim.job }

    /// Whether a failure of this attempt leaves the job `dead`.
    public var isLastAttempt: Bool { claim.job.attempts >= claim.job.maxAttempts }
}

/// The payload of a job that needs no input (`{}`); other keys are ignored.
public struct NoJobPayload: Codable, Sendable, Hashable {
    /// The empty payload.
    public init() {}
}
