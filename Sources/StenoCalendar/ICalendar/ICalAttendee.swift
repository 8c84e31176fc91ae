import Foundation

/// An `ORGANIZER` or `ATTENDEE` of an event.
public struct ICalAttendee: Sendable, Hashable {
    /// `ROLE`.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        case chair = "CHAIR"
        case requiredParticipant = "REQ-PARTICIPANT"
        case optionalParticipant = "OPT-PARTICIPANT"
        case nonParticipant = "NON-PARTICIPANT"
    }

    /// `PARTSTAT`.
    public enum ParticipationStatus: String, Sendable, Hashable, CaseIterable {
        case needsAction = "NEEDS-ACTION"
        case accepted = "ACCEPTED"
        case declined = "DECLINED"
        case tentative = "TENTATIVE"
        case delegated = "DELEGATED"
    }

    /// `CUTYPE`.
    public enum CalendarUserType: String, Sendable, Hashable, CaseIterable {
        case individual = "INDIVIDUAL"
        case group = "GROUP"
        case resource = "RESOURCE"
        case room = "ROOM"
        case unknown = "UNKNOWN"
    }

    /// The address, lower-cased, without `mailto:` (empty when the value is not an address).
    public var email: String
    /// `CN`, with quotes removed; non-ASCII text is kept as is.
    public var name: String?
    /// `ROLE` (RFC default: required participant; unknown values map to it too).
    public var role: Role
    /// `PARTSTAT` (RFC default: needs-action).
    public var partstat: ParticipationStatus
    /// `CUTYPE` (RFC default: individual; unknown values map to `.unknown`).
    public var cutype: CalendarUserType
    /// `RSVP=TRUE`.
    public var rsvp: Bool

    /// Creates an attendee.
    public init(email: String, name: String? = nil, role: Role = .requiredParticipant,
                partstat: ParticipationStatus = .needsAction, cutype: CalendarUserType = .individual, rsvp: Bool = false) {
        self.email = email
        self.name = name
        self.role = role
        self.partstat = partstat
        self.cutype = cutype
        self.rsvp = rsvp
    }

    /// Reads an `ORGANIZER`/`ATTENDEE` content line.
    ///
    /// The address comes from a `mailto:` value, else from the `EMAIL` parameter (RFC 7986),
    /// else from the raw value if it looks like an address.
    public init(contentLine line: ContentLine) {
        let raw = line.value.trimmingCharacters(in: .whitespaces)
        var email = ""
        if raw.lowercased().hasPrefix("mailto:") {
            email = String(raw.dropFirst(7))
        } else if let param = line.parameter("EMAIL") {
            email = param
        } else if raw.contains("@"), !raw.contains(":") {
            email = raw
        }
        email = (email.removingPercentEncoding ?? email).trimmingCharacters(in: .whitespaces).lowercased()
        let cn = line.parameter("CN").map { ContentLine.unescapeText($0).trimmingCharacters(in: .whitespaces) }
        self.init(
            email: email,
            name: (cn?.isEmpty ?? true) ? nil : cn,
            role: line.parameter("ROLE").flatMap { Role(rawValue: $0.uppercased()) } ?? .requiredParticipant,
            partstat: line.parameter("PARTSTAT").flatMap { ParticipationStatus(rawValue: $0.uppercased()) } ?? .needsAction,
            cutype: line.parameter("CUTYPE").map { CalendarUserType(rawValue: $0.uppercased()) ?? .unknown } ?? .individual,
            rsvp: line.parameter("RSVP")?.equalsIgnoringASCIICase("TRUE") == true
        )
    }
}
