import Foundation
import Logging
import StenoCatalog
import StenoCore
import StenoJSON

/// What the device agent's endpoints do, apart from HTTP: pairing, authentication, pushed
/// events and the change feeds. ``DeviceAgentServer`` routes requests here.
struct DeviceAgentAPI: Sendable {
    let store: any CatalogStore
    /// Where the linking job goes when pushed events change meetings.
    let queue: JobQueue
    let throttle: AuthFailureThrottle
    let contacts: DeviceContactLog
    /// Catalog writes of one owner's devices run one at a time, so that a member pushing from
    /// many devices at once takes one writer's share, not every writer's.
    let writers = PerKeyRequestLimiter<Int64>(limit: 1)
    /// The zone of a paired device that names none.
    let defaultTimeZone: String
    /// The most devices a member may have (`[members] max_devices`); a code is not spent on a
    /// device beyond it.
    var deviceLimit: MemberLimit? = nil
    /// Where recordings' files are, for phones to play them; nil serves none.
    var inbox: Inbox? = nil
    let logger: Logger

    /// Events per upsert request at most: a phone pushes in batches; a bigger body is a bug
    /// (or an attack) better refused whole than half-stored.
    static let maximumEventsPerRequest = 1000
    static let defaultPageSize = 500
    static let maximumPageSize = 1000

    /// The one answer to a missing, unknown or revoked token, so none can be told apart.
    static let unauthorized = DeviceAgentResponse.error(401, "missing, unknown or revoked device token; pair the device again with steno devices pair")

    // MARK: Pairing

    /// `POST /sync/devices/register`: trades a pairing code for a device token.
    func register(body: [UInt8], address: String) async throws -> DeviceAgentResponse {
        if let wait = throttle.delay(for: address) { return .tooManyFailures(wait) }
        let request: JSONValue
        do {
            request = try JSONValue.parse(body)
        } catch {
            return .error(400, error.description)
        }
        guard let typed = request["pairingCode"]?.stringValue else {
            return .error(400, "send {\"pairingCode\": \"XXXX-XXXX\"} with the code steno devices pair printed")
        }
        guard let code = DeviceCredentials.canonicalPairingCode(typed) else { return failedPairing(address) }
        let label = request["label"]?.stringValue.flatMap { try? DeviceMethods.label($0) } ?? "device"
        let zone = request["timeZone"]?.stringValue.flatMap(TimeZone.init(identifier:))?.identifier ?? defaultTimeZone
        let token = DeviceCredentials.newToken()
        let redeemed: DeviceRecord?
        do {
            redeemed = try await store.redeemPairing(
                codeHash: DeviceCredentials.digest(pairingCode: code), tokenHash: DeviceCredentials.digest(token: token), label: label,
                timeZone: zone, deviceLimit: deviceLimit, now: Date())
        } catch StoreError.failedPrecondition(let refusal) {
            // A right code: not a failure to throttle, and the code stays good for later.
            logger.notice("device pairing refused: \(refusal)", metadata: ["address": "\(address)"])
            return .error(403, refusal)
        }
        guard let device = redeemed else { return failedPairing(address) }
        logger.info("device paired", metadata: ["device": "\(device.id)", "owner": "\(device.ownerName)", "address": "\(address)"])
        return DeviceAgentResponse(
            status: 201,
            body: [
                "deviceToken": .string(token),
                "device": [
                    "id": .int(device.id), "label": .string(device.label), "timeZone": .string(device.timeZone),
                    "account": .int(device.accountID), "owner": .string(device.ownerName),
                ],
            ])
    }

    private func failedPairing(_ address: String) -> DeviceAgentResponse {
        if let wait = throttle.recordFailure(from: address) { return .tooManyFailures(wait) }
        return .error(401, "the pairing code is wrong, used or expired; make a new one with steno devices pair")
    }

    // MARK: Authentication

    /// The device an `Authorization: Device <token>` header names, or the answer to send.
    ///
    /// A valid token is served even from an address shut out for failures: the failures are
    /// someone else's guesses (a phone behind the same NAT), and a token cannot be guessed.
    func authenticate(authorization: String?, address: String) async throws -> Result<DeviceRecord, DeviceAgentResponse> {
        let token = DeviceCredentials.token(fromAuthorization: authorization)
        if token == nil, let wait = throttle.delay(for: address) { return .failure(.tooManyFailures(wait)) }
        guard let token, let device = try await store.device(tokenHash: DeviceCredentials.digest(token: token)) else {
            if let wait = throttle.delay(for: address) ?? throttle.recordFailure(from: address) { return .failure(.tooManyFailures(wait)) }
            return .failure(Self.unauthorized)
        }
        if contacts.shouldRecord(deviceID: device.id, address: address) {
            try await store.recordDeviceContact(id: device.id, address: address, now: Date())
        }
        return .success(device)
    }

    // MARK: Upserts

    /// `POST /sync/apple/events/upsert`: one event object or `{"events": […]}`.
    func upsert(device: DeviceRecord, body: [UInt8]) async throws -> DeviceAgentResponse {
        let started = Date()
        let request: JSONValue
        do {
            request = try JSONValue.parse(body)
        } catch {
            return .error(400, error.description)
        }
        let items: [JSONValue]
        if let events = request["events"] {
            guard let list = events.arrayValue else { return .error(400, "\"events\" must be a list of event objects") }
            items = list
        } else if case .object = request {
            items = [request]
        } else {
            return .error(400, "send one event object or {\"events\": [ … ]}")
        }
        guard items.count <= Self.maximumEventsPerRequest else {
            return .error(
                400, "\(items.count) events in one request; send at most \(Self.maximumEventsPerRequest) per request (nothing was stored)")
        }
        let reader = DeviceEventPayload(accountID: device.accountID, deviceTimeZone: TimeZone(identifier: device.timeZone) ?? .gmt)
        var writes: [DeviceEventWrite] = []
        var slots: [Result<Int, DeviceEventPayload.FieldError>] = []
        for item in items {
            do {
                writes.append(try reader.write(from: item))
                slots.append(.success(writes.count - 1))
            } catch {
                slots.append(.failure(error))
            }
        }
        let store = self.store
        let report = try await writers.run(for: device.ownerID) { () async -> Result<DeviceWriteReport, any Error> in
            do {
                return .success(try await store.applyDeviceEvents(writes, accountID: device.accountID, now: Date()))
            } catch {
                return .failure(error)
            }
        }.get()
        if !report.changes.touchedMeetingIDs.isEmpty {
            // As after a calendar sync: link recordings that now have a meeting, revalidate the rest.
            _ = try await queue.enqueue(LinksAfterSyncJobHandler.draft(since: started.addingTimeInterval(-1)))
        }
        var counts: [String: Int64] = ["ok": 0, "unchanged": 0, "stale": 0, "error": 0]
        let results: [JSONValue] = zip(items, slots).map { item, slot in
            var result: [String: JSONValue] = ["externalId": DeviceEventPayload.externalID(of: item).map(JSONValue.string) ?? .null]
            switch slot {
            case .success(let index):
                let outcome = report.outcomes[index]
                result["status"] = .string(outcome.rawValue)
                counts[outcome.rawValue, default: 0] += 1
            case .failure(let error):
                result["status"] = "error"
                result["field"] = .string(error.field)
                result["error"] = .string(error.message)
                counts["error", default: 0] += 1
            }
            return .object(result)
        }
        logger.debug(
            "device events pushed",
            metadata: [
                "device": "\(device.id)", "events": "\(items.count)", "ok": "\(counts["ok"] ?? 0)", "errors": "\(counts["error"] ?? 0)",
            ])
        return DeviceAgentResponse(status: 200, body: ["results": .array(results), "counts": .object(counts.mapValues { .int($0) })])
    }

    // MARK: Change feeds

    /// `GET /sync/apple/events/changes` (`ownEvents`) and `GET /sync/events/changes`.
    func changes(device: DeviceRecord, query: [String: String], ownEvents: Bool) async throws -> DeviceAgentResponse {
        let since: Int64
        if let text = query["since"], !text.isEmpty {
            guard let value = Int64(text), value >= 0 else { return .error(400, "since must be the serverTime of the last answer (0 the first time)") }
            since = value
        } else {
            since = 0
        }
        var limit = Self.defaultPageSize
        if let text = query["limit"] {
            guard let value = Int(text), (1...Self.maximumPageSize).contains(value) else {
                return .error(400, "limit must be from 1 to \(Self.maximumPageSize)")
            }
            limit = value
        }
        let includeDeleted = ["1", "true", "yes"].contains(query["includeDeleted"]?.lowercased() ?? "")
        let page = try await store.eventChanges(
            EventChangesQuery(
                since: since, limit: limit, includeDeleted: includeDeleted,
                scope: ownEvents ? .account(device.accountID) : .visibleTo(ownerID: device.ownerID, deviceAccountID: device.accountID)))
        return DeviceAgentResponse(
            status: 200, body: DeviceFeedEncoding.page(page, deviceTimeZone: TimeZone(identifier: device.timeZone) ?? .gmt))
    }
}

/// An answer of the device agent: a status and a JSON body.
struct DeviceAgentResponse: Error, Sendable {
    var status: Int
    var body: JSONValue
    /// Seconds for a `Retry-After` header.
    var retryAfter: Int?

    static func error(_ status: Int, _ message: String) -> DeviceAgentResponse {
        DeviceAgentResponse(status: status, body: ["error": .string(message)])
    }

    static func tooManyFailures(_ wait: Duration) -> DeviceAgentResponse {
        let seconds = max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0))
        var response = error(429, "too many failed attempts from this address; try again in \(seconds) s")
        response.retryAfter = seconds
        return response
    }
}
