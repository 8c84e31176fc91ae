import Foundation
import Testing
@testable import StenoJSON

private enum Role: String, Codable, Equatable { case admin, member }
private enum Level: Int, Codable, Equatable { case low = 1, high = 2 }

private struct Attendee: Codable, Equatable {
    var email: String
    var name: String?
    var optionalFlag: Bool?
}

private struct Meeting: Codable, Equatable {
    var id: Int64
    var title: String
    var start: Date
    var attendees: [Attendee]
    var role: Role
    var level: Level
    var tags: Set<String>
    var counts: [String: Int]
    var payload: Data
    var url: URL
    var score: Double
    var ratio: Float
    var small: UInt8
    var big: UInt64
    var extra: JSONValue
    var nested: [[Int]]
    var maybe: Int?
}

/// Exercises nested containers and super encoders explicitly.
private class Base: Codable {
    var baseField: Int
    init(baseField: Int) { self.baseField = baseField }
}

private final class Derived: Base, @unchecked Sendable {
    var own: String
    init(own: String, baseField: Int) {
        self.own = own
        super.init(baseField: baseField)
    }
    private enum CodingKeys: String, CodingKey { case own, geometry }
    private enum GeometryKeys: String, CodingKey { case points }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        own = try container.decode(String.self, forKey: .own)
        let geometry = try container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
        var points = try geometry.nestedUnkeyedContainer(forKey: .points)
        var pair = try points.nestedUnkeyedContainer()
        _ = try pair.decode(Int.self)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(own, forKey: .own)
        var geometry = container.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
        var points = geometry.nestedUnkeyedContainer(forKey: .points)
        var pair = points.nestedUnkeyedContainer()
        try pair.encode(1)
        try pair.encode(2)
        try super.encode(to: container.superEncoder())
    }
}

private struct Params: Codable {
    var emails: [String]
    var name: String
    var when: Date?
}

private func decodingError<T: Decodable>(_ type: T.Type, _ value: JSONValue) -> DecodingError? {
    do {
        _ = try JSONValueDecoder().decode(type, from: value)
        return nil
    } catch let error as DecodingError {
        return error
    } catch {
        return nil
    }
}

@Suite("JSONValue Codable bridge")
struct JSONValueCodableTests {
    private let sample = Meeting(
        id: 7, title: "Daily standup", start: Date(timeIntervalSince1970: 1_795_167_000),
        attendees: [Attendee(email: "a@x", name: "Alice", optionalFlag: nil), Attendee(email: "b@x", name: nil, optionalFlag: true)],
        role: .admin, level: .high, tags: ["x"], counts: ["a": 1], payload: Data([0, 1, 2, 250]),
        url: URL(string: "https://corp.example/m?id=1")!, score: 0.75, ratio: 0.1, small: 255, big: UInt64.max,
        extra: ["unknown": [1, "two", nil]], nested: [[1, 2], []], maybe: nil)

    @Test func encodesToExpectedTree() throws {
        let value = try JSONValueEncoder().encode(sample)
        #expect(value["id"] == 7)
        #expect(value["start"] == "2026-11-20T09:30:00Z")
        #expect(value["attendees"]?[0] == ["email": "a@x", "name": "Alice"])
        #expect(value["attendees"]?[1] == ["email": "b@x", "optionalFlag": true])
        #expect(value["role"] == "admin")
        #expect(value["level"] == 2)
        #expect(value["payload"] == "AAEC+g==")
        #expect(value["url"] == "https://corp.example/m?id=1")
        #expect(value["ratio"] == 0.1)
        #expect(value["big"] == .double(18446744073709551615.0))
        #expect(value["extra"] == ["unknown": [1, "two", nil]])
        #expect(value["maybe"] == nil, "nil optionals are omitted")
    }

    @Test func roundTripsThroughTreeAndBytes() throws {
        var roundTrip = sample
        roundTrip.big = 1 << 40  // UInt64.max is stored as a double; keep the round trip exact
        let tree = try JSONValueEncoder().encode(roundTrip)
        let reparsed = try JSONValue.parse(tree.serializedBytes)
        #expect(try JSONValueDecoder().decode(Meeting.self, from: reparsed) == roundTrip)
        // Foundation's coders accept JSONValue fields too.
        let foundation = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(JSONValue.object(["a": [1, 2.5, "x", nil, true]])))
        #expect(foundation == ["a": [1, 2.5, "x", nil, true]])
    }

    @Test func jsonValueFieldsThroughFoundation() throws {
        struct Sidecar: Codable, Equatable {
            var title: String
            var extra: JSONValue
            var missing: JSONValue?
        }
        let text = #"{"title":"t","extra":{"tags":["a",1,2.5,true,null],"nested":{"k":"v"}}}"#
        let viaFoundation = try JSONDecoder().decode(Sidecar.self, from: Data(text.utf8))
        let viaOurs = try JSONValueDecoder().decode(Sidecar.self, from: JSONValue.parse(text))
        #expect(viaFoundation == viaOurs)
        #expect(viaOurs.extra["tags"] == ["a", 1, 2.5, true, nil])
        let reencoded = try JSONDecoder().decode(Sidecar.self, from: JSONEncoder().encode(viaOurs))
        #expect(reencoded == viaOurs)
    }

    @Test func nestedContainersAndSuperEncoder() throws {
        let value = try JSONValueEncoder().encode(Derived(own: "o", baseField: 3))
        #expect(value == ["own": "o", "geometry": ["points": [[1, 2]]], "super": ["baseField": 3]])
        let decoded = try JSONValueDecoder().decode(Derived.self, from: value)
        #expect(decoded.own == "o" && decoded.baseField == 3)
    }

    @Test func dates() throws {
        let encoder = JSONValueEncoder()
        #expect(try encoder.encode(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(try encoder.encode(Date(timeIntervalSince1970: 1_795_167_000.123)) == "2026-11-20T09:30:00.123Z")
        #expect(try encoder.encode(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(try encoder.encode(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        let decoder = JSONValueDecoder()
        let base = Date(timeIntervalSince1970: 1_795_167_000)
        #expect(try decoder.decode(Date.self, from: "2026-11-20T09:30:00Z") == base)
        #expect(try decoder.decode(Date.self, from: "2026-11-20T10:30:00+01:00") == base)
        #expect(try decoder.decode(Date.self, from: "2026-11-20T04:00:00-0530") == base)
        let fractional = try decoder.decode(Date.self, from: "2026-11-20T09:30:00.123Z")
        #expect(abs(fractional.timeIntervalSince(base) - 0.123) < 1e-6)
        #expect(try encoder.encode(fractional) == "2026-11-20T09:30:00.123Z")
        for bad in ["2026-11-20", "2026-11-20T09:30:00", "2026-02-30T00:00:00Z", "2026-11-20T25:00:00Z", "yesterday", "2026-11-20T09:30:00.Z"] {
            #expect(decodingError(Date.self, .string(bad)) != nil, "\(bad)")
        }
    }

    @Test func integers() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Int.self, from: 3.0) == 3)
        #expect(try decoder.decode(Int8.self, from: -128) == -128)
        #expect(try decoder.decode(UInt64.self, from: 9_223_372_036_854_775_807) == UInt64(Int64.max))
        #expect(try decoder.decode(Double.self, from: 3) == 3.0)
        #expect(try decoder.decode(Float.self, from: 2) == 2.0)
        guard case .typeMismatch? = decodingError(Int.self, 3.5) else {
            Issue.record("3.5 into Int should be a type mismatch")
            return
        }
        guard case .dataCorrupted(let context)? = decodingError(Int32.self, .int(1 << 40)) else {
            Issue.record("2^40 into Int32 should be data corrupted")
            return
        }
        #expect(context.debugDescription == "number 1099511627776 does not fit in Int32")
        guard case .dataCorrupted? = decodingError(UInt.self, -1) else {
            Issue.record("-1 into UInt should be data corrupted")
            return
        }
        guard case .dataCorrupted? = decodingError(Float.self, 1e300) else {
            Issue.record("1e300 into Float should be data corrupted")
            return
        }
    }

    @Test func optionalsAndNil() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Attendee.self, from: ["email": "a", "name": nil]) == Attendee(email: "a"))
        #expect(try decoder.decode(Int?.self, from: nil) == nil)
        #expect(try decoder.decode([Int?].self, from: [1, nil]) == [1, nil])
        #expect(try JSONValueEncoder().encode([Int?.none, 1]) == [nil, 1])
        #expect(try JSONValueEncoder().encode(Int?.none) == nil)
    }

    @Test func errorPathsAndMessages() throws {
        let bad: JSONValue = ["emails": ["a@x", "b@x", 3], "name": "n"]
        let mismatch = try #require(decodingError(Params.self, bad))
        #expect(mismatch.humanDescription == "emails[2]: expected String, found number")
        #expect(mismatch.humanDescription(root: "params") == "params.emails[2]: expected String, found number")

        let missing = try #require(decodingError(Params.self, ["emails": []]))
        guard case .keyNotFound(let key, _) = missing else {
            Issue.record("expected keyNotFound, got \(missing)")
            return
        }
        #expect(key.stringValue == "name")
        #expect(missing.humanDescription == "name: missing")

        let null = try #require(decodingError(Params.self, ["emails": nil, "name": "n"]))
        #expect(null.humanDescription == "emails: expected array, found null")

        let date = try #require(decodingError(Params.self, ["emails": [], "name": "n", "when": "tomorrow"]))
        #expect(date.humanDescription == #"when: expected an ISO 8601 date-time like 2026-11-20T09:30:00Z, found "tomorrow""#)

        let nested = try #require(decodingError([Attendee].self, [["email": "a"], ["email": true]]))
        #expect(nested.humanDescription == "[1].email: expected String, found boolean")

        let top = try #require(decodingError(Params.self, [1]))
        #expect(top.humanDescription == "expected object, found array")

        let role = try #require(decodingError(Role.self, "owner"))
        #expect(role.humanDescription.contains("owner"))

        let shortArray = try #require(decodingError([Int].self, [1, "x"]))
        #expect(shortArray.humanDescription == "[1]: expected Int, found string")
    }

    @Test func encodingErrors() {
        #expect(throws: EncodingError.self) {
            try JSONValueEncoder().encode(Date(timeIntervalSince1970: 1e15))
        }
    }
}
