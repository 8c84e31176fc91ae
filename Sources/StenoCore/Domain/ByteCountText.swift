/// A byte count as people read it: `512 B`, `1.5 MiB`, `150.0 GiB` (binary units).
public enum ByteCountText {
    /// `count` in the largest binary unit that keeps it at 1 or more, one decimal.
    public static func binary(_ count: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        guard unit > 0 else { return "\(count) B" }
        // One decimal without Foundation's formatter: tenths rounded half up.
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
