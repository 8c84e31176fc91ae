import Foundation

/// A time zone as a person names it: an IANA name (`Europe/Paris`), `UTC`/`Z`, or a fixed
/// offset (`+01:00`, `+0100`, `-05`).
public enum TimeZoneName {
    /// The zone named by `name`; nil when it names none.
    public static func zone(_ name: String) -> TimeZone? {
        let text = name.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.count <= 64 else { return nil }
        if ["utc", "z", "gmt"].contains(text.lowercased()) { return TimeZone(identifier: "UTC") }
        if let sign = text.first, sign == "+" || sign == "-" {
            let digits = text.dropFirst().filter { $0 != ":" }
            guard [2, 4].contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                text.dropFirst().filter({ $0 == ":" }).count <= 1,
                let hours = Int(digits.prefix(2)), let minutes = Int(digits.dropFirst(2).isEmpty ? "0" : String(digits.dropFirst(2))),
                hours <= 18, minutes < 60
            else { return nil }
            return TimeZone(secondsFromGMT: (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60))
        }
        // Foundation accepts some abbreviations and odd spellings as identifiers; only names
        // with a real zone behind them count.
        guard let zone = TimeZone(identifier: text), TimeZone.knownTimeZoneIdentifiers.contains(zone.identifier) || text == zone.identifier
        else { return nil }
        return zone
    }

    /// `+01:00`: how a printed time names its zone (one form for every zone, unlike
    /// abbreviations, which are ambiguous and differ between systems).
    public static func offset(_ zone: TimeZone, at date: Date) -> String {
        let seconds = zone.secondsFromGMT(for: date)
        let magnitude = abs(seconds) / 60
        // Not String(format:): a CSV of 20,000 meetings writes 40,000 offsets.
        func twoDigits(_ number: Int) -> String { number < 10 ? "0" + String(number) : String(number) }
        return (seconds < 0 ? "-" : "+") + twoDigits(magnitude / 60) + ":" + twoDigits(magnitude % 60)
    }
}
