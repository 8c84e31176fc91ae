import Foundation
import StenoAPI
import StenoCore
import StenoTesting
import Testing

@testable import StenoService

@Suite("Device agent: reading pushed events, codes and tokens")
struct DeviceEventPayloadTests {
    let reader = DeviceEventPayload(accountID: 7, deviceTimeZone: TimeZone(identifier: "Europe/Berlin") ?? .gmt)

    func write(_ object: [String: JSONValue]) throws(DeviceEventPayload.FieldError) -> DeviceEventWrite {
        var event: [String: JSONValue] = ["externalId": "E1", "externalCalendarId": "CAL"]
        event.merge(object) { _, new in new }
        return try reader.write(from: .object(event))
    }

    func occurrence(_ write: DeviceEventWrite) -> EventOccurrence? {
        if case .upsert(_, let occurrence, _) = write.change { return occurrence }
        return nil
    }

    func utc(_ text: String) -> Date? { ISO8601Timestamp.date(from: text) }

    @Test func localTimesBecomeInstantsInTheirZoneAcrossDaylightSaving() throws {
        // Berlin's clocks go forward on 29 March 2026: 09:00 is UTC+2 that day, UTC+1 the day before.
        let spring = try #require(occurrence(try write(["date": "2026-03-29", "startTime": "09:00", "endTime": "10:30"])))
        #expect(spring.start == utc("2026-03-29T07:00:00Z") && spring.end == utc("2026-03-29T08:30:00Z"))
        let before = try #require(occurrence(try write(["date": "2026-03-28", "startTime": "09:00", "endTime": "10:30"])))
        #expect(before.start == utc("2026-03-28T08:00:00Z"))
        let tokyo = try #require(occurrence(try write(["date": "2026-11-25", "startTime": "23:30", "endTime": "00:15", "endDate": "2026-11-26", "timeZone": "Asia/Tokyo"])))
        #expect(tokyo.start == utc("2026-11-25T14:30:00Z") && tokyo.end == utc("2026-11-25T15:15:00Z") && tokyo.timeZone == "Asia/Tokyo")
        let allDay = try #require(occurrence(try write(["date": "2026-10-24", "endDate": "2026-10-25"])))
        #expect(allDay.isAllDay && allDay.allDayStart == "2026-10-24" && allDay.allDayEnd == "2026-10-26")
        // Back to the protocol's form: the same days and times.
        let local = DeviceEventTimes.local(
            start: allDay.start, end: allDay.end, isAllDay: true, allDayStart: allDay.allDayStart, allDayEnd: allDay.allDayEnd,
            zone: TimeZone(identifier: "Europe/Berlin") ?? .gmt)
        #expect(local == DeviceEventTimes.Local(date: "2026-10-24", endDate: "2026-10-25"))
        let timed = DeviceEventTimes.local(start: tokyo.start, end: tokyo.end, isAllDay: false, allDayStart: nil, allDayEnd: nil, zone: TimeZone(identifier: "Asia/Tokyo") ?? .gmt)
        #expect(timed == DeviceEventTimes.Local(date: "2026-11-25", startTime: "23:30", endTime: "00:15", endDate: "2026-11-26"))
    }

    @Test func identitiesAndOccurrencesFollowTheDevicesIdentifiers() throws {
        let shared = try #require(occurrence(try write(["date": "2026-11-25", "startTime": "09:00", "endTime": "10:00", "calendarItemExternalIdentifier": "uid-1@example.com"])))
        #expect(shared.meetingIdentity == "uid-1@example.com" && shared.iCalUID == "uid-1@example.com")
        let own = try #require(occurrence(try write(["date": "2026-11-25", "startTime": "09:00", "endTime": "10:00"])))
        #expect(own.meetingIdentity == "device:7:E1")
        let occurrenceDate = try #require(utc("2026-12-02T08:00:00Z"))
        let repeated = try write([
            "date": "2026-12-02", "startTime": "09:00", "endTime": "10:00", "calendarItemExternalIdentifier": "series@example.com",
            "occurrenceDate": .int(Int64(occurrenceDate.timeIntervalSince1970 * 1000)),
        ])
        #expect(repeated.remoteID == "E1#20261202T080000Z")
        #expect(occurrence(repeated)?.meetingIdentity == MeetingIdentity.iCalendar(uid: "series@example.com", recurrenceID: occurrenceDate))
        let deleted = try write(["deleted": true])
        #expect(deleted.change == .delete(allOccurrences: true))
        let attended = try #require(occurrence(try write([
            "date": "2026-11-25", "startTime": "09:00", "endTime": "10:00", "organizer": ["email": "Boss@Example.com"],
            "attendees": [["email": "a@example.com", "status": "declined", "role": "optional"], ["email": "room@example.com", "type": "room"], ["name": "no email"]],
        ])))
        #expect(attended.organizer?.email == "boss@example.com")
        #expect(attended.attendees.map(\.email) == ["a@example.com", "room@example.com"])
        #expect(attended.attendees.map(\.role) == [.optional, .resource] && attended.attendees.first?.response == .declined)
    }

    @Test func eachBadFieldIsNamed() {
        let cases: [([String: JSONValue], String)] = [
            (["externalId": ""], "externalId"), (["externalCalendarId": .null], "externalCalendarId"),
            (["date": "2026-13-01"], "date"), (["date": "2026-11-25", "startTime": "9:00", "endTime": "10:00"], "startTime"),
            (["date": "2026-11-25", "startTime": "09:00"], "endTime"), (["date": "2026-11-25", "endTime": "10:00"], "startTime"),
            (["date": "2026-11-25", "startTime": "11:00", "endTime": "10:00"], "endTime"),
            (["date": "2026-11-25", "timeZone": "Nowhere/Town"], "timeZone"), (["date": "2026-11-25", "status": "maybe"], "status"),
            (["date": "2026-11-25", "externalUpdatedAt": "yesterday"], "externalUpdatedAt"), (["date": "2026-11-25", "serverId": "42"], "serverId"),
            (["date": "2026-11-25", "attendees": "everyone"], "attendees"), (["deleted": "yes"], "deleted"),
        ]
        for (fields, field) in cases {
            #expect(throws: DeviceEventPayload.FieldError.self) { _ = try write(fields) }
            do {
                _ = try write(fields)
            } catch {
                #expect(error.field == field, "\(fields): \(error)")
            }
        }
    }

    /// Random objects with the protocol's field names and values of every JSON type: each
    /// reads as a write or fails naming a field; nothing traps.
    @Test func randomEventsNeverTrap() {
        var random = SeededRandom(seed: 17)
        let fields = [
            "externalId", "externalCalendarId", "title", "date", "startTime", "endTime", "endDate", "timeZone", "status", "deleted",
            "externalUpdatedAt", "occurrenceDate", "attendees", "organizer", "serverId", "calendarItemExternalIdentifier", "location", "url",
        ]
        let texts = ["", "2026-11-25", "2026-02-29", "9999-12-31", "0000-01-01", "24:00", "23:59", "00:00:60", "e:12", "e:x", "Europe/Berlin", "\u{0}", "東京", "A#B"]
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<8, using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .int(Int64.random(in: .min ... .max, using: &random))
            case 3: return .double(Double.random(in: -1e20...1e20, using: &random))
            case 4, 5: return .string(texts[Int.random(in: 0..<texts.count, using: &random)])
            case 6: return depth > 2 ? .null : .array((0..<Int.random(in: 0..<3, using: &random)).map { _ in value(depth + 1) })
            default: return depth > 2 ? .null : .object(["email": value(depth + 1), "status": value(depth + 1)])
            }
        }
        var read = 0
        for _ in 0..<5_000 {
            var object: [String: JSONValue] = [:]
            for field in fields where Bool.random(using: &random) { object[field] = value(0) }
            do {
                _ = try reader.write(from: .object(object))
                read += 1
            } catch {
                #expect(error.field.isEmpty || fields.contains { error.field.hasPrefix($0) } , "\(error)")
            }
        }
        #expect(read < 5_000)
    }

    @Test func pairingCodesAreTypedForgivinglyAndTokensReadStrictly() {
        let code = DeviceCredentials.newPairingCode()
        #expect(code.count == 9 && code.dropFirst(4).first == "-")
        #expect(DeviceCredentials.canonicalPairingCode(code.lowercased()) == code.replacingOccurrences(of: "-", with: ""))
        #expect(DeviceCredentials.canonicalPairingCode("k7qf 2mxo") == "K7QF2MX0")
        #expect(DeviceCredentials.canonicalPairingCode("K7QF-2MX") == nil && DeviceCredentials.canonicalPairingCode("K7QF-2MXU") == nil)
        let token = DeviceCredentials.newToken()
        #expect(token.hasPrefix("stdv_") && token.count == 48 && token != DeviceCredentials.newToken())
        #expect(DeviceCredentials.token(fromAuthorization: "Device \(token)") == token)
        #expect(DeviceCredentials.token(fromAuthorization: "device  \(token)") == token)
        #expect(DeviceCredentials.token(fromAuthorization: "Bearer \(token)") == nil && DeviceCredentials.token(fromAuthorization: "Device x") == nil)
    }

    @Test func failuresAreFreeAtFirstThenDelayedUpToAMinute() {
        let throttle = AuthFailureThrottle(freeFailures: 2, maximumDelay: .seconds(8))
        let start = ContinuousClock.now
        #expect(throttle.recordFailure(from: "a", now: start) == nil && throttle.recordFailure(from: "a", now: start) == nil)
        #expect(throttle.recordFailure(from: "a", now: start) == .seconds(1))
        #expect(throttle.delay(for: "a", now: start) == .seconds(1) && throttle.delay(for: "b", now: start) == nil)
        for _ in 0..<10 { throttle.recordFailure(from: "a", now: start) }
        #expect(throttle.delay(for: "a", now: start) == .seconds(8))
        // Only time forgets failures.
        #expect(throttle.delay(for: "a", now: start + .seconds(9)) == nil)
    }

    @Test func aFullTableDropsAddressesNotShutOutFirst() {
        let throttle = AuthFailureThrottle(freeFailures: 1, capacity: 100)
        let start = ContinuousClock.now
        for _ in 0..<3 { throttle.recordFailure(from: "guesser", now: start) }
        #expect(throttle.delay(for: "guesser", now: start) != nil)
        // Filling the table with fresh addresses (claimed ones, say) keeps the guesser shut out.
        for index in 0..<1_000 { throttle.recordFailure(from: "10.0.\(index / 256).\(index % 256)", now: start + .milliseconds(index)) }
        #expect(throttle.count <= 100)
        #expect(throttle.delay(for: "guesser", now: start + .seconds(1)) != nil)
    }
}
