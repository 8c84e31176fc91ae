import Foundation

/// The rules of one time zone: how wall-clock times map to instants and back.
///
/// Three sources exist: a fixed offset (UTC), an IANA zone through Foundation's `TimeZone`,
/// and a zone defined by a calendar's own `VTIMEZONE` (``ObservanceTimeZone``) when its TZID is
/// neither IANA nor a known Windows name.
///
/// Wall-clock times that exist twice (fall-back) resolve to the earlier instant. Times that do
/// not exist (the spring-forward gap) move forward by the length of the gap (02:30 → 03:30) in
/// IANA zones, as Python's `zoneinfo` does for `fold=0`; in VTIMEZONE zones they take the new
/// offset (02:30 → 01:30 of the old offset), as dateutil's `tzical` zones do. Both match what
/// recurring-ical-events computes for the same input.
public enum TimeZoneRules: Sendable, Hashable, CustomStringConvertible {
    /// A constant offset from UTC in seconds; `.fixed(0)` is UTC.
    case fixed(offsetSeconds: Int)
    /// An IANA zone known to Foundation.
    case foundation(TimeZone)
    /// A zone defined by `VTIMEZONE` observances.
    case observances(ObservanceTimeZone)

    /// UTC.
    public static let utc = TimeZoneRules.fixed(offsetSeconds: 0)

    /// An IANA zone by name, or `nil` if Foundation does not know it. "UTC", "Etc/UTC", "GMT" and
    /// "Z" resolve to ``utc``.
    public static func iana(_ identifier: String) -> TimeZoneRules? {
        switch identifier.uppercased() {
        case "UTC", "ETC/UTC", "GMT", "ETC/GMT", "Z", "UCT", "ZULU", "ETC/UCT", "ETC/ZULU", "UNIVERSAL", "ETC/UNIVERSAL":
            return .utc
        default:
            // Foundation accepts some odd strings (e.g. "GMT+0100"); only take names with a
            // letter so numeric junk from real-world TZIDs falls through to other resolvers.
            guard identifier.contains(where: \.isLetter), let zone = TimeZone(identifier: identifier) else { return nil }
            return .foundation(zone)
        }
    }

    /// A human-readable identifier: the IANA name, the VTIMEZONE TZID, or "UTC".
    public var identifier: String {
        switch self {
        case .fixed(let s): return s == 0 ? "UTC" : "UTC\(s >= 0 ? "+" : "-")\(abs(s) / 3600):\(abs(s) % 3600 / 60)"
        case .foundation(let zone): return zone.identifier
        case .observances(let zone): return zone.identifier
        }
    }

    /// Same as ``identifier``.
    public var description: String { identifier }

    /// The offset from UTC in seconds in effect at an instant.
    public func offset(atUTCSeconds seconds: Int64) -> Int {
        switch self {
        case .fixed(let s): return s
        case .foundation(let zone): return zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        case .observances(let zone): return zone.offset(atUTCSeconds: seconds)
        }
    }

    /// The offset from UTC in seconds in effect at an instant.
    public func offset(at date: Date) -> Int {
        offset(atUTCSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    /// The wall-clock time of an instant in this zone.
    public func localDateTime(for date: Date) -> LocalDateTime {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        return LocalDateTime(secondsSinceEpoch: seconds + Int64(offset(atUTCSeconds: seconds)))
    }

    /// The instant of a wall-clock time in this zone (gap → shifted forward, overlap → earlier).
    public func instant(for local: LocalDateTime) -> Date {
        Date(timeIntervalSince1970: TimeInterval(utcSeconds(for: local)))
    }

    /// The instant, as seconds since the epoch, of a wall-clock time in this zone.
    public func utcSeconds(for local: LocalDateTime) -> Int64 {
        let t = local.secondsSinceEpoch
        switch self {
        case .fixed(let s): return t - Int64(s)
        case .observances(let zone): return zone.utcSeconds(forWallClock: t)
        case .foundation: break
        }
        // Offsets a day either side bracket any single transition near `t`.
        let before = offset(atUTCSeconds: t - 86_400)
        let after = offset(atUTCSeconds: t + 86_400)
        let candidateBefore = t - Int64(before)
        if before == after { return candidateBefore }
        let candidateAfter = t - Int64(after)
        let beforeValid = offset(atUTCSeconds: candidateBefore) == before
        let afterValid = offset(atUTCSeconds: candidateAfter) == after
        switch (beforeValid, afterValid) {
        case (true, true): return min(candidateBefore, candidateAfter)  // fall-back overlap: first one
        case (false, true): return candidateAfter
        default: return candidateBefore  // valid before, or a gap: the pre-transition offset moves it forward
        }
    }
}

/// One change of offset at an instant.
public struct ZoneTransition: Sendable, Hashable {
    /// Seconds since the epoch (UTC) at which the new offset starts.
    public var utcSeconds: Int64
    /// The offset in effect from then on.
    public var offsetAfter: Int
    /// The offset in effect before (`TZOFFSETFROM`); the onset's wall-clock time is
    /// `utcSeconds + offsetBefore`.
    public var offsetBefore: Int

    /// Creates a transition.
    public init(utcSeconds: Int64, offsetAfter: Int, offsetBefore: Int) {
        self.utcSeconds = utcSeconds
        self.offsetAfter = offsetAfter
        self.offsetBefore = offsetBefore
    }
}

/// A time zone defined by STANDARD/DAYLIGHT observances, as in an iCalendar `VTIMEZONE`.
///
/// Each observance starts at a wall-clock `DTSTART` (read in its `TZOFFSETFROM`) and repeats by
/// its RRULEs and RDATEs; the union of all onsets gives the zone's transitions, which are
/// precomputed up to ``ObservanceTimeZone/horizonYear``.
public struct ObservanceTimeZone: Sendable, Hashable {
    /// One STANDARD or DAYLIGHT sub-component.
    public struct Observance: Sendable, Hashable {
        /// Whether this is a DAYLIGHT observance.
        public var isDaylight: Bool
        /// The first onset, in wall-clock time of the previous offset.
        public var start: LocalDateTime
        /// The offset in effect before each onset (`TZOFFSETFROM`), in seconds.
        public var offsetFrom: Int
        /// The offset in effect after each onset (`TZOFFSETTO`), in seconds.
        public var offsetTo: Int
        /// Recurrence rules for further onsets.
        public var rules: [RecurrenceRule]
        /// Extra onsets (wall-clock time, like `start`).
        public var rdates: [LocalDateTime]
        /// `TZNAME`, if any.
        public var name: String?

        /// Creates an observance.
        public init(isDaylight: Bool, start: LocalDateTime, offsetFrom: Int, offsetTo: Int,
                    rules: [RecurrenceRule] = [], rdates: [LocalDateTime] = [], name: String? = nil) {
            self.isDaylight = isDaylight
            self.start = start
            self.offsetFrom = offsetFrom
            self.offsetTo = offsetTo
            self.rules = rules
            self.rdates = rdates
            self.name = name
        }
    }

    /// Onsets are computed up to the start of this year; later instants keep the last offset.
    public static let horizonYear = 2100
    /// Rules without COUNT are expanded from this year at the earliest.
    public static let earliestExpandedYear = 1900

    /// The TZID.
    public let identifier: String
    /// The observances as given.
    public let observances: [Observance]
    /// All onsets, sorted by instant.
    public let transitions: [ZoneTransition]
    /// The offset before the first transition.
    public let initialOffset: Int
    /// The transitions sorted by their wall-clock onset.
    private let wallClockTransitions: [ZoneTransition]

    /// Builds the zone, expanding every observance's onsets (bounded by ``ExpansionLimits``).
    public init(identifier: String, observances: [Observance]) {
        self.identifier = identifier
        self.observances = observances
        let horizon = LocalDateTime(year: Self.horizonYear, month: 1, day: 1)
        var transitions: [ZoneTransition] = []
        for obs in observances {
            var onsets: Set<LocalDateTime> = [obs.start]
            onsets.formUnion(obs.rdates)
            for rule in obs.rules {
                // Outlook starts observances in 1601; expanding centuries of onsets nobody asks
                // about is waste. Without COUNT, starting in 1900 on the same month, day and time
                // gives the same later onsets (the BYxxx parts pin them down).
                var ruleStart = obs.start
                if rule.count == nil, ruleStart.year < Self.earliestExpandedYear {
                    let day = min(ruleStart.day, LocalDateTime.daysInMonth(year: Self.earliestExpandedYear, month: ruleStart.month))
                    ruleStart = LocalDateTime(year: Self.earliestExpandedYear, month: ruleStart.month, day: day,
                                              hour: ruleStart.hour, minute: ruleStart.minute, second: ruleStart.second)
                }
                let untilCheck: (LocalDateTime) -> Bool
                switch rule.until {
                case .utc(let u)?:
                    let limit = u.secondsSinceEpoch
                    untilCheck = { $0.secondsSinceEpoch - Int64(obs.offsetFrom) > limit }
                case let other?:
                    let limit = other.value
                    untilCheck = { $0 > limit }
                case nil:
                    untilCheck = { _ in false }
                }
                let limits = ExpansionLimits(maxOccurrences: 5_000, maxIterations: 50_000)
                onsets.formUnion(rule.expand(start: ruleStart, limit: horizon, isAfterUntil: untilCheck, limits: limits))
            }
            for onset in onsets {
                transitions.append(ZoneTransition(utcSeconds: onset.secondsSinceEpoch - Int64(obs.offsetFrom),
                                                  offsetAfter: obs.offsetTo, offsetBefore: obs.offsetFrom))
            }
        }
        transitions.sort { $0.utcSeconds < $1.utcSeconds }
        self.transitions = transitions
        wallClockTransitions = transitions.sorted { $0.utcSeconds + Int64($0.offsetBefore) < $1.utcSeconds + Int64($1.offsetBefore) }
        let earliest = observances.min { $0.start < $1.start }
        // Before the first onset, the earliest observance's "from" offset applies (as in RFC 5545).
        initialOffset = earliest?.offsetFrom ?? 0
    }

    /// The offset in effect at an instant.
    public func offset(atUTCSeconds seconds: Int64) -> Int {
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid].utcSeconds <= seconds { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? initialOffset : transitions[low - 1].offsetAfter
    }

    /// The instant of a wall-clock time (seconds as if UTC), resolved as dateutil's `tzical`
    /// does: the offset of the last onset whose wall-clock time is not after it. A time in a
    /// gap therefore takes the new offset; a repeated time keeps the old (the first instant).
    public func utcSeconds(forWallClock t: Int64) -> Int64 {
        var low = 0
        var high = wallClockTransitions.count
        while low < high {
            let mid = (low + high) / 2
            let onset = wallClockTransitions[mid].utcSeconds + Int64(wallClockTransitions[mid].offsetBefore)
            if onset <= t { low = mid + 1 } else { high = mid }
        }
        let offset = low == 0 ? initialOffset : wallClockTransitions[low - 1].offsetAfter
        return t - Int64(offset)
    }

    public static func == (lhs: ObservanceTimeZone, rhs: ObservanceTimeZone) -> Bool {
        lhs.identifier == rhs.identifier && lhs.observances == rhs.observances
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(observances)
    }
}
